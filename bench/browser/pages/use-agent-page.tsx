/**
 * Browser page of benchmark 7: a minimal chat on `useAgent` whose model streams N words from the
 * scripted model server. Counts React commits of the chat (a layout effect without dependencies), animation frames (a rAF loop) and
 * long tasks (`PerformanceObserver`, type `longtask`) while one answer streams.
 */
import { useEffect, useLayoutEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { Agent, type RunResult } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { useAgent } from '@switchboard/react';

/** What one streamed answer measured. */
export interface RenderTrial {
  /** React commits of the chat while the answer streamed. */
  commits: number;
  /** Animation frames that elapsed meanwhile. */
  frames: number;
  /** Durations of long tasks (> 50 ms) meanwhile, in ms. */
  longTasks: number[];
  /** Characters of the answer on screen at the end. */
  renderedCharacters: number;
  status: string;
  /** Duration of the answer, in ms. */
  ms: number;
}

declare global {
  interface Window {
    benchReady?: boolean;
    benchRenderTrial?: (options: { modelUrl: string; words: number }) => Promise<RenderTrial>;
  }
}

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

function nextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

window.benchRenderTrial = async ({ modelUrl, words }) => {
  const key = `${modelUrl} ${words}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({
      name: 'bench',
      model: openaiChatModel({
        model: `text:${words}`,
        baseURL: `${modelUrl}/v1`,
        apiKey: 'bench',
        maxRetries: 0,
      }),
    });
    agents.set(key, agent);
  }
  const threadId = crypto.randomUUID();
  sendMessage = undefined;
  flushSync(() =>
    root.render(
      <Chat key={threadId} agent={agent} threadId={threadId} />,
    ),
  );
  while (sendMessage === undefined) await nextFrame();
  const send = sendMessage;
  await nextFrame();

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
  commits = 0;
  const start = performance.now();
  const result = await send('Stream the text.');
  // The last batched commit lands by the next frame at the latest.
  await nextFrame();
  await nextFrame();
  const ms = performance.now() - start;
  counting = false;
  const measuredCommits = commits;
  // Long-task entries are delivered asynchronously; give the observer a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  observer.disconnect();
  const assistant = container.querySelector('p[data-role="assistant"]');
  return {
    commits: measuredCommits,
    frames,
    longTasks,
    renderedCharacters: assistant?.textContent?.length ?? 0,
    status: result.status,
    ms,
  };
};

window.benchReady = true;
