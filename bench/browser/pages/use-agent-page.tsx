/**
 * Browser page of benchmark 7: a minimal chat on `useAgent` whose model streams N words. Counts
 * React commits of the chat (a layout effect without dependencies), animation frames (a rAF
 * loop) and long tasks (`PerformanceObserver`, type `longtask`) while one answer streams.
 *
 * Stream sources: `in-page` (the words yielded in the page, 20 per task, so only the agent, the
 * chat store and React are measured), or `provider` (the scripted model server through the
 * `openai` SDK, `delayMs` between deltas). `benchPlainTrial` renders the same stream without
 * Switchboard — React state updated once per animation frame, the usual hand-written way — as
 * the baseline; `benchSdkOnly` consumes the stream with the SDK alone (no React), for attribution.
 */
import { useEffect, useLayoutEffect, useState } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import OpenAI from 'openai';
import { Agent, type Model, type RunResult } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { useAgent } from '@switchboard/react';
import { benchText } from '../../servers/bench-text.ts';

/** Long tasks and frames while something ran. */
export interface Measured {
  /** Animation frames that elapsed. */
  frames: number;
  /** Durations of long tasks (> 50 ms), in ms. */
  longTasks: number[];
  /** Duration, in ms. */
  ms: number;
}

/** What one streamed answer measured. */
export interface RenderTrial extends Measured {
  /** React commits of the chat while the answer streamed. */
  commits: number;
  /** Characters of the answer on screen at the end. */
  renderedCharacters: number;
  status: string;
}

/** Options of one trial. */
export interface RenderTrialOptions {
  source: 'in-page' | 'provider';
  modelUrl: string;
  words: number;
  /** Delay between deltas of the `provider` source, in ms. */
  delayMs: number;
}

declare global {
  interface Window {
    benchReady?: boolean;
    benchRenderTrial?: (options: RenderTrialOptions) => Promise<RenderTrial>;
    benchPlainTrial?: (options: RenderTrialOptions) => Promise<RenderTrial>;
    benchSdkOnly?: (options: {
      modelUrl: string;
      words: number;
      delayMs: number;
    }) => Promise<Measured>;
  }
}

const DELTAS_PER_TASK = 20;
let commits = 0;
let sendMessage: ((text: string) => Promise<RunResult>) | undefined;

function Chat({ agent, threadId }: { agent: Agent; threadId: string }) {
  const { messages, send, status } = useAgent(agent, { threadId });
  // Runs once per commit that re-rendered the chat (a Profiler would need React's profiling build).
  useLayoutEffect(() => {
    commits += 1;
  });
  useEffect(() => {
    sendMessage = status === 'idle' ? send : undefined;
  }, [send, status]);
  return (
    <div>
      {messages.map((message) => (
        <p key={message.id} data-role={message.role}>
          {message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}
        </p>
      ))}
    </div>
  );
}

const container = document.getElementById('root') as HTMLElement;
const root = createRoot(container);
const agents = new Map<string, Agent>();

/** The chat's `send` once it is idle (read through a call so TypeScript does not narrow it). */
function currentSend(): ((text: string) => Promise<RunResult>) | undefined {
  return sendMessage;
}

function nextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

/** A new macrotask without timer clamping (like network chunks arriving). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** The answer's words (with their trailing spaces), `DELTAS_PER_TASK` per task. */
async function* inPageDeltas(words: number): AsyncGenerator<string> {
  const pieces = benchText(words).match(/\S+\s*|\s+/g) ?? [];
  for (const [index, piece] of pieces.entries()) {
    if (index % DELTAS_PER_TASK === 0) await nextTask();
    yield piece;
  }
}

/** The answer's deltas from the scripted model server through the `openai` SDK alone. */
async function* providerDeltas(
  modelUrl: string,
  words: number,
  delayMs: number,
): AsyncGenerator<string> {
  const client = new OpenAI({
    baseURL: `${modelUrl}/v1`,
    apiKey: 'bench',
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
  });
  const stream = await client.chat.completions.create({
    model: `text:${words}:${delayMs}`,
    messages: [{ role: 'user', content: 'Stream the text.' }],
    stream: true,
  });
  for await (const chunk of stream) {
    const content = chunk.choices[0]?.delta.content;
    if (typeof content === 'string' && content !== '') yield content;
  }
}

/** A model that streams `words` words from inside the page, `DELTAS_PER_TASK` per task. */
function inPageModel(words: number): Model {
  return {
    provider: 'bench',
    modelId: 'in-page',
    async *stream() {
      for await (const delta of inPageDeltas(words)) yield { type: 'text.delta', delta };
      yield { type: 'done' };
    },
  };
}

function agentFor(options: RenderTrialOptions): Agent {
  const key = `${options.source} ${options.modelUrl} ${options.words} ${options.delayMs}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({
      name: 'bench',
      model:
        options.source === 'in-page'
          ? inPageModel(options.words)
          : openaiChatModel({
              model: `text:${options.words}:${options.delayMs}`,
              baseURL: `${options.modelUrl}/v1`,
              apiKey: 'bench',
              maxRetries: 0,
            }),
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Runs `body`, counting animation frames and long tasks until two frames after it settled. */
async function measure<T>(body: () => Promise<T>): Promise<{ value: T; measured: Measured }> {
  const longTasks: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push(entry.duration);
  });
  observer.observe({ type: 'longtask' });
  let frames = 0;
  let counting = true;
  const countFrame = () => {
    if (!counting) return;
    frames += 1;
    requestAnimationFrame(countFrame);
  };
  requestAnimationFrame(countFrame);
  const start = performance.now();
  const value = await body();
  // A batched commit lands by the next frame at the latest.
  await nextFrame();
  await nextFrame();
  const ms = performance.now() - start;
  counting = false;
  // Long-task entries are delivered asynchronously; give the observer a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  observer.disconnect();
  return { value, measured: { frames, longTasks, ms } };
}

window.benchRenderTrial = async (options) => {
  const agent = agentFor(options);
  const threadId = crypto.randomUUID();
  sendMessage = undefined;
  flushSync(() => root.render(<Chat key={threadId} agent={agent} threadId={threadId} />));
  let send = currentSend();
  while (send === undefined) {
    await nextFrame();
    send = currentSend();
  }
  const ready = send;
  await nextFrame();
  const { value: result, measured } = await measure(async () => {
    commits = 0;
    return await ready('Stream the text.');
  });
  const measuredCommits = commits;
  const assistant = container.querySelector('p[data-role="assistant"]');
  return {
    ...measured,
    commits: measuredCommits,
    renderedCharacters: assistant?.textContent?.length ?? 0,
    status: result.status,
  };
};

let setPlainText: ((text: string) => void) | undefined;

/** The baseline chat: the same two paragraphs, from plain React state. */
function PlainChat() {
  const [text, setText] = useState('');
  useLayoutEffect(() => {
    commits += 1;
  });
  useEffect(() => {
    setPlainText = setText;
  }, []);
  return (
    <div>
      <p data-role="user">Stream the text.</p>
      <p data-role="assistant">{text}</p>
    </div>
  );
}

function currentSetPlainText(): ((text: string) => void) | undefined {
  return setPlainText;
}

window.benchPlainTrial = async (options) => {
  setPlainText = undefined;
  flushSync(() => root.render(<PlainChat key={crypto.randomUUID()} />));
  let setText = currentSetPlainText();
  while (setText === undefined) {
    await nextFrame();
    setText = currentSetPlainText();
  }
  const update = setText;
  await nextFrame();
  const { measured } = await measure(async () => {
    commits = 0;
    let text = '';
    let frame: number | undefined;
    const onDelta = (delta: string) => {
      text += delta;
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        update(text);
      });
    };
    if (options.source === 'in-page') {
      // The same `Model` stream the agent reads (its generator layer included), read directly.
      const signal = new AbortController().signal;
      const model = inPageModel(options.words);
      for await (const event of model.stream({ items: [], tools: [] }, { signal })) {
        if (event.type === 'text.delta') onDelta(event.delta);
      }
    } else {
      for await (const delta of providerDeltas(options.modelUrl, options.words, options.delayMs)) {
        onDelta(delta);
      }
    }
    if (frame !== undefined) cancelAnimationFrame(frame);
    update(text);
  });
  const measuredCommits = commits;
  const assistant = container.querySelector('p[data-role="assistant"]');
  return {
    ...measured,
    commits: measuredCommits,
    renderedCharacters: assistant?.textContent?.length ?? 0,
    status: 'completed',
  };
};

window.benchSdkOnly = async ({ modelUrl, words, delayMs }) => {
  const { measured } = await measure(async () => {
    let deltas = 0;
    for await (const delta of providerDeltas(modelUrl, words, delayMs)) {
      if (delta !== '') deltas += 1;
    }
    return deltas;
  });
  return measured;
};

window.benchReady = true;
