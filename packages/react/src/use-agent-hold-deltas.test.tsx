import {
  Agent,
  AgentChat,
  MemoryHistoryStore,
  type Chunk,
  type RunHandle,
} from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@switchboard/fixtures';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useAgent } from './use-agent.ts';

/**
 * useAgent while the chat holds streamed deltas for the next frame (`AgentChat`'s `holdDeltas`
 * over `FrameBatchedStore.beforeNextFlush`): an unmount, a stop and two hooks on one agent lose
 * no delta, show none twice, and leave no animation frame asked for.
 */

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An agent on a scripted model answering `replies`, recording the handles of its runs. */
async function agentOn(replies: ScriptedReply[]) {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  servers.push(server);
  const history = new MemoryHistoryStore();
  const agent = new Agent({
    name: 'test',
    model: openaiChatModel({
      baseURL: `${server.url}/v1`,
      model: 'scripted',
      apiKey: 'x',
      maxRetries: 0,
    }),
    history,
  });
  const runs: { handle: RunHandle; chunks: Chunk[] }[] = [];
  const execute = agent.execute.bind(agent);
  agent.execute = (input) => {
    const handle = execute(input);
    const run = { handle, chunks: [] as Chunk[] };
    runs.push(run);
    void (async () => {
      for await (const chunk of handle.chunks) run.chunks.push(chunk);
    })();
    return handle;
  };
  return { agent, history, runs };
}

/**
 * Animation frames that run only when the test says, and the ones still asked for (a frame
 * asked for and never cancelled is a frame loop left alive).
 */
function manualFrames() {
  const waiting = new Map<number, FrameRequestCallback>();
  let next = 0;
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    next += 1;
    waiting.set(next, callback);
    return next;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => waiting.delete(id));
  return {
    get pending() {
      return waiting.size;
    },
    run() {
      const due = [...waiting.values()];
      waiting.clear();
      for (const callback of due) callback(performance.now());
    },
  };
}

/** The text of the `text.delta` chunks of `chunks`, joined. */
function streamedText(chunks: readonly Chunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text.delta' ? chunk.delta : '')).join('');
}

function deltaCount(chunks: readonly Chunk[]): number {
  return chunks.filter((chunk) => chunk.type === 'text.delta').length;
}

/** Renders outside act(): React renders when the store says so, as in a browser. */
async function outsideAct<T>(body: () => Promise<T>): Promise<T> {
  const environment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined };
  const previous = environment.IS_REACT_ACT_ENVIRONMENT;
  environment.IS_REACT_ACT_ENVIRONMENT = false;
  try {
    return await body();
  } finally {
    environment.IS_REACT_ACT_ENVIRONMENT = previous;
  }
}

const words = Array.from({ length: 40 }, (_, index) => `w${index} `).join('');

describe('useAgent with held deltas', () => {
  it('unmount while deltas are held: the stopped run keeps every delta once, and no frame is left', async () => {
    const frames = manualFrames();
    const { agent, runs } = await agentOn([{ text: words, delayMs: 20 }]);
    const { result, unmount } = renderHook(() => useAgent(agent, { threadId: 't' }));
    await waitFor(() => expect(result.current.status).toBe('idle'));

    await outsideAct(async () => {
      const sent = result.current.send('talk');
      // No frame runs: the deltas streamed so far are held in the chat, not yet shown.
      await waitFor(() => expect(deltaCount(runs[0]?.chunks ?? [])).toBeGreaterThan(2));
      expect(result.current.messages.at(-1)?.role).not.toBe('assistant');
      expect(frames.pending).toBeGreaterThan(0);

      unmount();
      // The unmount stops the run; its frame is cancelled and none is asked for again.
      expect((await sent).status).toBe('cancelled');
      expect(frames.pending).toBe(0);
    });
    const streamed = streamedText(runs[0]?.chunks ?? []);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(words.length);

    // What was streamed is stored once, and a new chat shows exactly it.
    const reloaded = new AgentChat(agent, { threadId: 't' });
    await reloaded.load();
    expect(reloaded.getSnapshot().messages.at(-1)?.parts).toEqual([
      { type: 'text', text: streamed },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(frames.pending).toBe(0);
  });

  it('stop while deltas are held shows every streamed delta once, and leaves no frame asked for', async () => {
    const frames = manualFrames();
    const { agent, runs } = await agentOn([{ text: words, delayMs: 20 }]);
    const { result } = renderHook(() => useAgent(agent, { threadId: 't' }));
    await waitFor(() => expect(result.current.status).toBe('idle'));

    await outsideAct(async () => {
      const sent = result.current.send('talk');
      await waitFor(() => expect(deltaCount(runs[0]?.chunks ?? [])).toBeGreaterThan(2));
      result.current.stop();
      expect((await sent).status).toBe('cancelled');
      await waitFor(() => expect(result.current.status).toBe('idle'));
    });
    const streamed = streamedText(runs[0]?.chunks ?? []);
    expect(result.current.messages.at(-1)?.parts).toEqual([{ type: 'text', text: streamed }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(frames.pending).toBe(0);
  });

  it('two hooks on one agent, each streaming its own thread: each shows its own answer, whole and once', async () => {
    const frames = manualFrames();
    const first = Array.from({ length: 12 }, (_, index) => `a${index} `).join('');
    const second = Array.from({ length: 12 }, (_, index) => `b${index} `).join('');
    const { agent } = await agentOn([
      { text: first, delayMs: 15 },
      { text: second, delayMs: 15 },
    ]);
    const { result } = renderHook(() => ({
      one: useAgent(agent, { threadId: 'one' }),
      two: useAgent(agent, { threadId: 'two' }),
    }));
    await waitFor(() => {
      expect(result.current.one.status).toBe('idle');
      expect(result.current.two.status).toBe('idle');
    });

    const shown: string[][] = [[], []];
    await outsideAct(async () => {
      const sentOne = result.current.one.send('first');
      const sentTwo = result.current.two.send('second');
      // Frames run now and then while both stream: each shows a growing prefix of its answer.
      const ticking = setInterval(() => {
        frames.run();
        [result.current.one, result.current.two].forEach((hook, index) => {
          const part = hook.messages[1]?.parts[0];
          if (part?.type === 'text') shown[index]?.push(part.text);
        });
      }, 25);
      try {
        const [one, two] = await Promise.all([sentOne, sentTwo]);
        expect(one.status).toBe('completed');
        expect(two.status).toBe('completed');
        await waitFor(() => {
          expect(result.current.one.status).toBe('idle');
          expect(result.current.two.status).toBe('idle');
        });
      } finally {
        clearInterval(ticking);
      }
    });
    const answers = [first, second];
    const texts = [result.current.one, result.current.two].map((hook) => hook.messages[1]?.parts);
    // Which thread got which scripted reply depends on which request reached the server first.
    expect(texts.map((parts) => (parts?.[0]?.type === 'text' ? parts[0].text : '')).sort()).toEqual(
      answers.sort(),
    );
    expect(texts.every((parts) => parts?.length === 1)).toBe(true);
    for (const [index, seen] of shown.entries()) {
      const final = texts[index]?.[0];
      const text = final?.type === 'text' ? final.text : '';
      for (const prefix of seen) expect(text.startsWith(prefix)).toBe(true);
    }
    expect(frames.pending).toBe(0);
  });

  it('two hooks on one agent and one thread: the one mounted mid-stream follows the run and ends with the same messages', async () => {
    const frames = manualFrames();
    const { agent, runs } = await agentOn([{ text: words, delayMs: 10 }]);
    const one = renderHook(() => useAgent(agent, { threadId: 'shared' }));
    await waitFor(() => expect(one.result.current.status).toBe('idle'));
    let two: ReturnType<typeof renderHook<ReturnType<typeof useAgent>, unknown>> | undefined;
    const twoStatuses = new Set<string>();
    await outsideAct(async () => {
      const ticking = setInterval(() => frames.run(), 16);
      try {
        const sent = one.result.current.send('talk');
        await waitFor(() => expect(deltaCount(runs[0]?.chunks ?? [])).toBeGreaterThan(2));
        // A second view of the same thread opens while the first one's run streams.
        two = renderHook(() => {
          const view = useAgent(agent, { threadId: 'shared' });
          twoStatuses.add(view.status);
          return view;
        });
        expect((await sent).status).toBe('completed');
        await waitFor(() => {
          expect(one.result.current.status).toBe('idle');
          expect(two?.result.current.status).toBe('idle');
        });
      } finally {
        clearInterval(ticking);
      }
    });
    const plain = (messages: readonly { role: string; parts: unknown }[] | undefined) =>
      messages?.map(({ role, parts }) => ({ role, parts }));
    expect(plain(one.result.current.messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'talk' }] },
      { role: 'assistant', parts: [{ type: 'text', text: words }] },
    ]);
    expect(plain(two?.result.current.messages)).toEqual(plain(one.result.current.messages));
    // It showed the run as another chat's (read from history), and never started one.
    expect(twoStatuses).toContain('running-elsewhere');
    expect(runs).toHaveLength(1);
    expect(frames.pending).toBe(0);
  });
});
