import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { FunctionCallItem, Usage } from '../vocabulary/items.ts';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  finish,
  ofType,
  scripted,
  toolMessage,
} from './agent-test-support.ts';
import type { AgentHooks } from './hooks.ts';

afterEach(closeScriptedModelServers);

function lookupTool(): { definition: Tool; runs: string[] } {
  const runs: string[] = [];
  const definition = tool({
    name: 'lookup',
    description: 'Looks a word up.',
    input: z.object({ word: z.string() }),
    execute: ({ word }) => {
      runs.push(word);
      return `definition of ${word}`;
    },
  });
  return { definition, runs };
}

const LOOKUP = (word: string, id = `call_${word}`) => ({
  id,
  name: 'lookup',
  arguments: { word },
});

describe('Agent hooks', () => {
  it('beforeToolCall can answer in place of the tool', async () => {
    const { server, model } = await scripted([
      { toolCalls: [LOOKUP('cached'), LOOKUP('fresh')] },
      { text: 'Done.' },
    ]);
    const lookup = lookupTool();
    const events: { callId: string; arguments: unknown; tool: string | undefined }[] = [];
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: {
        beforeToolCall: ({ call, arguments: args, tool: found }) => {
          events.push({ callId: call.callId, arguments: args, tool: found?.name });
          return call.callId === 'call_cached'
            ? { action: 'answer', output: 'from the cache' }
            : { action: 'continue' };
        },
      },
    });

    const { chunks, result } = await finish(agent.execute({ messages: 'look up' }));

    expect(result.status).toBe('completed');
    expect(lookup.runs).toEqual(['fresh']);
    expect(events).toEqual([
      { callId: 'call_cached', arguments: { word: 'cached' }, tool: 'lookup' },
      { callId: 'call_fresh', arguments: { word: 'fresh' }, tool: 'lookup' },
    ]);
    const messages = server.requests[1]?.messages;
    expect(toolMessage(messages, 'call_cached')).toBe('from the cache');
    expect(toolMessage(messages, 'call_fresh')).toBe('definition of fresh');
    expect(ofType(chunks, 'tool.result').find((chunk) => chunk.callId === 'call_cached')).toEqual(
      expect.objectContaining({ output: { text: 'from the cache' } }),
    );
  });

  it('beforeToolCall can answer with a ToolOutput (an error the model reads)', async () => {
    const { server, model } = await scripted([
      { toolCalls: [LOOKUP('secret')] },
      { text: 'Sorry.' },
    ]);
    const lookup = lookupTool();
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: {
        beforeToolCall: () => ({
          action: 'answer',
          output: { text: 'Not allowed.', isError: true, error: { code: 'denied', message: 'no' } },
        }),
      },
    });

    await agent.execute({ messages: 'look up' }).result();

    expect(lookup.runs).toEqual([]);
    expect(toolMessage(server.requests[1]?.messages, 'call_secret')).toBe('Error: Not allowed.');
  });

  it('beforeToolCall interrupt holds the call for approval; approve runs it once without asking again', async () => {
    const { server, model } = await scripted([
      { toolCalls: [LOOKUP('risky'), LOOKUP('plain')] },
      { text: 'Done.' },
    ]);
    const lookup = lookupTool();
    const asked: { callId: string; runId: string }[] = [];
    const hooks: AgentHooks = {
      beforeToolCall: ({ call, runId }) => {
        asked.push({ callId: call.callId, runId });
        return call.callId === 'call_risky'
          ? { action: 'interrupt', message: 'This word is risky.' }
          : undefined;
      },
    };
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history, hooks, tools: [lookup.definition] });

    const paused = await agent.execute({ threadId: 't-hook', messages: 'look up' }).result();

    expect(paused.status).toBe('paused');
    expect(paused.interrupts).toEqual([
      {
        callId: 'call_risky',
        toolName: 'lookup',
        arguments: { word: 'risky' },
        mode: 'approval',
        message: 'This word is risky.',
      },
    ]);
    expect(lookup.runs).toEqual(['plain']);

    // A new Agent (as after a reload) resumes: the hook may run again but cannot hold it twice.
    const resumed = await new Agent({
      name: 'b',
      model,
      history,
      hooks,
      tools: [lookup.definition],
    })
      .execute({ threadId: 't-hook', resolutions: [{ callId: 'call_risky', action: 'approve' }] })
      .result();

    expect(resumed.status).toBe('completed');
    expect(lookup.runs).toEqual(['plain', 'risky']);
    expect(toolMessage(server.requests[1]?.messages, 'call_risky')).toBe('definition of risky');
    expect(new Set(asked.map((entry) => entry.runId))).toEqual(new Set([paused.runId]));
  });

  it('beforeToolCall interrupt, rejected: the tool never runs', async () => {
    const { server, model } = await scripted([{ toolCalls: [LOOKUP('risky')] }, { text: 'Ok.' }]);
    const lookup = lookupTool();
    const agent = new Agent({
      name: 'a',
      model,
      tools: [lookup.definition],
      hooks: { beforeToolCall: () => ({ action: 'interrupt' }) },
    });
    await agent.execute({ threadId: 't-hook-reject', messages: 'look up' }).result();

    const result = await agent
      .execute({
        threadId: 't-hook-reject',
        resolutions: [{ callId: 'call_risky', action: 'reject' }],
      })
      .result();

    expect(result.status).toBe('completed');
    expect(lookup.runs).toEqual([]);
    expect(toolMessage(server.requests[1]?.messages, 'call_risky')).toMatch(/declined/);
  });

  it('afterToolCall replaces the output the model and the chunks see', async () => {
    const { server, model } = await scripted([{ toolCalls: [LOOKUP('long')] }, { text: 'Ok.' }]);
    const lookup = lookupTool();
    const seen: unknown[] = [];
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: {
        afterToolCall: async ({ call, output, tool: found }) => {
          seen.push([call.callId, found?.name, output]);
          return { text: output.text.toUpperCase() };
        },
      },
    });

    const { chunks, result } = await finish(agent.execute({ messages: 'look up' }));

    expect(seen).toEqual([['call_long', 'lookup', { text: 'definition of long' }]]);
    expect(toolMessage(server.requests[1]?.messages, 'call_long')).toBe('DEFINITION OF LONG');
    expect(ofType(chunks, 'tool.result')[0]?.output).toEqual({ text: 'DEFINITION OF LONG' });
    const output = result.output.find((item) => item.type === 'function_call_output');
    expect(output).toEqual({
      type: 'function_call_output',
      callId: 'call_long',
      output: { text: 'DEFINITION OF LONG' },
    });
  });

  it('afterToolCall returning nothing keeps the output', async () => {
    const { server, model } = await scripted([{ toolCalls: [LOOKUP('word')] }, { text: 'Ok.' }]);
    const lookup = lookupTool();
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: { afterToolCall: () => undefined },
    });

    await agent.execute({ messages: 'look up' }).result();

    expect(toolMessage(server.requests[1]?.messages, 'call_word')).toBe('definition of word');
  });

  it('beforeModelCall can change the request: trim history and add a system message', async () => {
    const { server, model } = await scripted([{ text: 'First answer.' }, { text: 'Second.' }]);
    const turns: { turn: number; runContext: unknown; threadId: string; items: number }[] = [];
    const agent = new Agent({
      name: 'test',
      instructions: 'Be brief.',
      model,
      hooks: {
        beforeModelCall: ({ request, turn, runContext, threadId }) => {
          turns.push({ turn, runContext, threadId, items: request.items.length });
          return {
            ...request,
            instructions: `${request.instructions ?? ''}\nToday is Monday.`,
            items: [
              { type: 'message', role: 'system', content: 'Only the last message matters.' },
              ...request.items.slice(-1),
            ],
          };
        },
      },
    });

    await agent.execute({ threadId: 't-trim', messages: 'first' }).result();
    await agent
      .execute({ threadId: 't-trim', messages: 'second', runContext: { user: 'ada' } })
      .result();

    expect(turns).toEqual([
      { turn: 1, runContext: undefined, threadId: 't-trim', items: 1 },
      { turn: 1, runContext: { user: 'ada' }, threadId: 't-trim', items: 3 },
    ]);
    expect(server.requests[1]?.messages).toEqual([
      { role: 'system', content: 'Be brief.\nToday is Monday.' },
      { role: 'system', content: 'Only the last message matters.' },
      { role: 'user', content: 'second' },
    ]);
  });

  it('beforeModelCall can change the tools on offer', async () => {
    const { server, model } = await scripted([{ text: 'No tools for you.' }]);
    const lookup = lookupTool();
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: { beforeModelCall: ({ request }) => ({ ...request, tools: [] }) },
    });

    await agent.execute({ messages: 'hi' }).result();

    expect(server.requests[0]?.tools ?? []).toEqual([]);
  });

  it('afterModelCall sees each turn’s text, calls and usage', async () => {
    const { model } = await scripted([
      {
        text: 'Let me look.',
        toolCalls: [LOOKUP('one')],
        usage: { promptTokens: 10, completionTokens: 3 },
      },
      { text: 'It means one.', usage: { promptTokens: 20, completionTokens: 4 } },
    ]);
    const lookup = lookupTool();
    const seen: { turn: number; text: string; calls: FunctionCallItem[]; usage?: Usage }[] = [];
    const agent = new Agent({
      name: 'test',
      model,
      tools: [lookup.definition],
      hooks: {
        afterModelCall: ({ turn, text, calls, usage }) => {
          seen.push({ turn, text, calls, ...(usage === undefined ? {} : { usage }) });
        },
      },
    });

    await agent.execute({ messages: 'what is one?' }).result();

    expect(seen).toEqual([
      {
        turn: 1,
        text: 'Let me look.',
        calls: [
          {
            type: 'function_call',
            callId: 'call_one',
            name: 'lookup',
            arguments: JSON.stringify({ word: 'one' }),
          },
        ],
        usage: expect.objectContaining({ inputTokens: 10, outputTokens: 3 }),
      },
      {
        turn: 2,
        text: 'It means one.',
        calls: [],
        usage: expect.objectContaining({ inputTokens: 20, outputTokens: 4 }),
      },
    ]);
  });

  const throwing: [keyof AgentHooks, AgentHooks][] = [
    ['beforeModelCall', { beforeModelCall: () => Promise.reject(new Error('boom')) }],
    [
      'afterModelCall',
      {
        afterModelCall: () => {
          throw new Error('boom');
        },
      },
    ],
    [
      'beforeToolCall',
      {
        beforeToolCall: ({ call }) => {
          if (call.callId === 'call_bad') throw new Error('boom');
        },
      },
    ],
    [
      'afterToolCall',
      {
        afterToolCall: async ({ call }) => {
          if (call.callId === 'call_bad') throw new Error('boom');
        },
      },
    ],
  ];

  for (const [name, hooks] of throwing) {
    it(`a throwing ${name} fails the run with hook_failed, every call answered`, async () => {
      const { server, model } = await scripted([
        { toolCalls: [LOOKUP('good', 'call_good'), LOOKUP('bad', 'call_bad')] },
        { text: 'Should not be reached.' },
      ]);
      const lookup = lookupTool();
      const history = new MemoryHistoryStore();
      const agent = new Agent({ name: 'test', model, history, hooks, tools: [lookup.definition] });

      const { chunks, result } = await finish(
        agent.execute({ threadId: `t-${name}`, messages: 'look up' }),
      );

      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('hook_failed');
      expect(result.error?.message).toContain(name);
      expect(result.error?.message).toContain('boom');
      expect(chunks.at(-1)).toEqual(
        expect.objectContaining({
          type: 'run.failed',
          error: expect.objectContaining({ code: 'hook_failed' }),
        }),
      );
      // The model is not asked again after the hook failed.
      expect(server.requests.length).toBeLessThanOrEqual(1);
      const rows = await history.loadRuns(`t-${name}`);
      expect(rows.map((row) => [row.status, row.error?.code])).toEqual([['failed', 'hook_failed']]);
      expectEveryCallAnsweredOnce(rows[0]?.items ?? []);
      expectEveryCallAnsweredOnce(result.output);
    });
  }
});
