// A Switchboard agent in plain Node: a local tool written with zod, the tools of an MCP server
// over Streamable HTTP, and an OpenAI-compatible model; every chunk of the stream is printed.
//
// Defaults point at the offline servers `npm start` runs in the Switchboard repository (the
// scripted model on :3002, the demo MCP server on :3003). For OpenAI itself:
//   OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… OPENAI_MODEL=gpt-4.1-mini
//   MCP_URL=https://your-mcp-server.example/mcp npm start
import { Agent, mcpServer, tool } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { z } from 'zod';

const model = openaiChatModel({
  baseURL: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:3002/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'scripted',
  model: process.env.OPENAI_MODEL ?? 'scripted',
});

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const demo = mcpServer({
  url: process.env.MCP_URL ?? 'http://127.0.0.1:3003/modern/mcp',
  name: 'demo',
});

const agent = new Agent({
  name: 'node-agent',
  instructions: 'Answer briefly. Use the tools when they help.',
  model,
  tools: [add],
  mcpServers: [demo],
});

const questions = process.argv.slice(2);
let failed = false;
try {
  for (const question of questions.length > 0
    ? questions
    : ['What is 2 plus 3?', 'read notes.txt']) {
    console.log(`\n> ${question}`);
    // One thread: the second question sees the first exchange.
    const run = agent.execute({ threadId: 'node-agent', messages: question });
    for await (const chunk of run.chunks) {
      if (chunk.type === 'text.delta') process.stdout.write(chunk.delta);
      if (chunk.type === 'tool.call')
        console.log(`→ ${chunk.toolName} ${JSON.stringify(chunk.arguments)}`);
      if (chunk.type === 'tool.result') console.log(`← ${chunk.output.text}`);
    }
    const result = await run.result();
    console.log(`\n[${result.status}]`);
    if (result.status !== 'completed') {
      console.error(result.error?.message ?? `The run ended ${result.status}.`);
      failed = true;
      break;
    }
  }
} finally {
  await demo.close();
}
process.exitCode = failed ? 1 : 0;
