import OpenAI from 'openai';
import { Agent } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
const w = window as any;
w.sdk = async (modelUrl: string, words: number) => {
  const client = new OpenAI({ baseURL: `${modelUrl}/v1`, apiKey: 'x', dangerouslyAllowBrowser: true, maxRetries: 0 });
  const t = performance.now();
  const stream = await client.chat.completions.create({ model: `text:${words}`, messages: [{ role: 'user', content: 'go' }], stream: true });
  let n = 0;
  for await (const c of stream) if (c.choices[0]?.delta.content) n++;
  return { n, ms: performance.now() - t };
};
w.agent = async (modelUrl: string, words: number) => {
  const agent = new Agent({ name: 'x', model: openaiChatModel({ model: `text:${words}`, baseURL: `${modelUrl}/v1`, apiKey: 'x', maxRetries: 0 }) });
  const t = performance.now();
  const run = agent.execute({ messages: 'go' });
  let n = 0;
  for await (const c of run.chunks) if (c.type === 'text.delta') n++;
  return { n, ms: performance.now() - t };
};
w.rawfetch = async (modelUrl: string, words: number) => {
  const t = performance.now();
  const r = await fetch(`${modelUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: `text:${words}`, messages: [{ role: 'user', content: 'go' }], stream: true }) });
  const text = await r.text();
  return { n: text.length, ms: performance.now() - t };
};
w.benchReady = true;
