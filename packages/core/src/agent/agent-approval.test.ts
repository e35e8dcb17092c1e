import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { tool } from '../tools/tool.ts';
import type { ToolAnnotations } from '../vocabulary/interrupts.ts';
import type { Tool } from '../tools/tool-types.ts';
import { mockModel, toolCallTurn } from '../testing/mock-model.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  collect,
  expectEveryCallAnsweredOnce,
  ofType,
  scripted,
  toolMessage,
} from './agent-test-support.ts';
import { destructiveToolsNeedApproval } from './approval-policies.ts';

afterEach(closeScriptedModelServers);

/** A tool recording each call's arguments; `options` adds approval and annotations. */
function recordingTool(
  name: string,
  options: {
    needsApproval?: NonNullable<Tool['needsApproval']>;
    annotations?: ToolAnnotations;
  } = {},
): { definition: Tool; calls: unknown[] } {
  const calls: unknown[] = [];
  const definition = tool({
    name,
    description: `The ${name} tool.`,
    input: z.object({ target: z.string() }),
    ...options,
    execute: (args) => {
      calls.push(args);
      return `${name} did ${args.target}`;
    },
  });
  return { definition, calls };
}

const DESTRUCTIVE: ToolAnnotations = { title: 'Delete a file', destructiveHint: true };

describe('Agent approvals', () => {
  it('holds a needsApproval call, runs the rest of the batch and pauses with one interrupt', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_delete', name: 'delete_file', arguments: { target: '/tmp/a' } },
          { id: 'call_read', name: 'read_file', arguments: { target: '/tmp/b' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const remove = recordingTool('delete_file', { needsApproval: true, annotations: DESTRUCTIVE });
    const read = recordingTool('read_file');
    const history = new MemoryHistoryStore();
    const agent = new Agent({
      name: 'test',
      model,
      history,
      tools: [remove.definition, read.definition],
    });

    const handle = agent.execute({ threadId: 't-approval', messages: 'clean up' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(remove.calls).toEqual([]);
    expect(read.calls).toEqual([{ target: '/tmp/b' }]);
    const expected = {
      callId: 'call_delete',
      toolName: 'delete_file',
      arguments: { target: '/tmp/a' },
      mode: 'approval',
      annotations: DESTRUCTIVE,
    };
    expect(chunks.at(-1)?.type).toBe('run.paused');
    expect(ofType(chunks, 'run.paused')[0]?.interrupts).toEqual([expected]);
    expect(ofType(chunks, 'tool.result').map((chunk) => chunk.callId)).toEqual(['call_read']);
    expect(result.status).toBe('paused');
    expect(result.error).toBeUndefined();
    expect(result.interrupts).toEqual([expected]);
    expect(server.requests).toHaveLength(1);

    const [row, ...others] = await history.loadRuns('t-approval');
    expect(others).toEqual([]);
    expect(row?.runId).toBe(handle.runId);
    expect(row?.status).toBe('paused');
    expect(row?.state?.version).toBe(1);
    expect(row?.state?.pending).toEqual([
      {
        call: {
          type: 'function_call',
          callId: 'call_delete',
          name: 'delete_file',
          arguments: JSON.stringify({ target: '/tmp/a' }),
        },
        interrupt: expected,
      },
    ]);
    expect(row?.lastSequence).toBe(chunks.at(-1)?.sequence);
    const outputs = (row?.items ?? []).flatMap((item) =>
      item.type === 'function_call_output' ? [item.callId] : [],
    );
    expect(outputs).toEqual(['call_read']);
  });

  it('approve runs the held tool exactly once and completes the same run, numbering on', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_delete', name: 'delete_file', arguments: { target: '/tmp/a' } },
          { id: 'call_read', name: 'read_file', arguments: { target: '/tmp/b' } },
        ],
      },
      { text: 'Deleted and read.' },
    ]);
    const remove = recordingTool('delete_file', { needsApproval: true, annotations: DESTRUCTIVE });
    const read = recordingTool('read_file');
    const history = new MemoryHistoryStore();
    const agent = new Agent({
      name: 'test',
      model,
      history,
      tools: [remove.definition, read.definition],
    });

    const paused = agent.execute({ threadId: 't-approve', messages: 'clean up' });
    const pausedChunks = await collect(paused);
    expect((await paused.result()).status).toBe('paused');

    const resumed = agent.execute({
      threadId: 't-approve',
      resolutions: [{ callId: 'call_delete', action: 'approve' }],
    });
    const chunks = await collect(resumed);
    const result = await resumed.result();

    expect(result.status).toBe('completed');
    expect(result.runId).toBe(paused.runId);
    expect(resumed.runId).toBe(paused.runId);
    expect(remove.calls).toEqual([{ target: '/tmp/a' }]);
    expect(read.calls).toHaveLength(1);
    for (const chunk of chunks) expect(chunk.runId).toBe(paused.runId);
    const lastPaused = pausedChunks.at(-1)?.sequence ?? Number.NaN;
    chunks.forEach((chunk, index) => expect(chunk.sequence).toBe(lastPaused + 1 + index));
    expect(chunks[0]?.type).toBe('run.started');
    expect(chunks.at(-1)?.type).toBe('run.completed');
    expect(ofType(chunks, 'tool.result')).toEqual([
      expect.objectContaining({
        callId: 'call_delete',
        output: { text: 'delete_file did /tmp/a' },
      }),
    ]);

    expect(server.requests).toHaveLength(2);
    const messages = server.requests[1]?.messages;
    expect(toolMessage(messages, 'call_delete')).toBe('delete_file did /tmp/a');
    expect(toolMessage(messages, 'call_read')).toBe('read_file did /tmp/b');

    const rows = await history.loadRuns('t-approve');
    expect(rows.map((row) => [row.runId, row.status])).toEqual([[paused.runId, 'completed']]);
    expect(rows[0]?.state?.pending).toEqual([]);
    expectEveryCallAnsweredOnce(rows[0]?.items ?? []);
    expect(result.output).toEqual(rows[0]?.items);
  });

  it('reject does not run the tool; the model reads that the user declined', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { target: '/x' } }] },
      { text: 'Understood, I left it.' },
    ]);
    const remove = recordingTool('delete_file', { needsApproval: true });
    const agent = new Agent({ name: 'test', model, tools: [remove.definition] });

    const paused = await agent.execute({ threadId: 't-reject', messages: 'delete /x' }).result();
    expect(paused.status).toBe('paused');
    const handle = agent.execute({
      threadId: 't-reject',
      resolutions: [{ callId: 'call_delete', action: 'reject' }],
    });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(remove.calls).toEqual([]);
    expect(toolMessage(server.requests[1]?.messages, 'call_delete')).toMatch(
      /^Error: The user declined this tool call/,
    );
    // The UI learns that the held call is over.
    expect(ofType(chunks, 'tool.result')).toEqual([
      expect.objectContaining({
        callId: 'call_delete',
        output: expect.objectContaining({
          isError: true,
          error: expect.objectContaining({ code: 'rejected' }),
        }),
      }),
    ]);
    expectEveryCallAnsweredOnce(result.output);
  });

  it('cancel does not run the tool either', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { target: '/x' } }] },
      { text: 'Ok.' },
    ]);
    const remove = recordingTool('delete_file', { needsApproval: true });
    const agent = new Agent({ name: 'test', model, tools: [remove.definition] });

    await agent.execute({ threadId: 't-cancel', messages: 'delete /x' }).result();
    const result = await agent
      .execute({ threadId: 't-cancel', resolutions: [{ callId: 'call_delete', action: 'cancel' }] })
      .result();

    expect(result.status).toBe('completed');
    expect(remove.calls).toEqual([]);
    expect(toolMessage(server.requests[1]?.messages, 'call_delete')).toMatch(/cancelled/);
  });

  it('answering one of two held calls pauses again with the other one', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_1', name: 'delete_file', arguments: { target: 'one' } },
          { id: 'call_2', name: 'delete_file', arguments: { target: 'two' } },
        ],
      },
      { text: 'Both handled.' },
    ]);
    const remove = recordingTool('delete_file', { needsApproval: true });
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'test', model, history, tools: [remove.definition] });

    const first = await agent.execute({ threadId: 't-two', messages: 'delete both' }).result();
    expect(first.interrupts.map((interrupt) => interrupt.callId)).toEqual(['call_1', 'call_2']);

    const second = await agent
      .execute({ threadId: 't-two', resolutions: [{ callId: 'call_2', action: 'approve' }] })
      .result();
    expect(second.status).toBe('paused');
    expect(second.runId).toBe(first.runId);
    expect(second.interrupts.map((interrupt) => interrupt.callId)).toEqual(['call_1']);
    expect(remove.calls).toEqual([{ target: 'two' }]);
    expect(server.requests).toHaveLength(1);
    const [row] = await history.loadRuns('t-two');
    expect(row?.state?.pending.map((pending) => pending.call.callId)).toEqual(['call_1']);

    const third = await agent
      .execute({ threadId: 't-two', resolutions: [{ callId: 'call_1', action: 'reject' }] })
      .result();
    expect(third.status).toBe('completed');
    expect(remove.calls).toEqual([{ target: 'two' }]);
    const messages = server.requests[1]?.messages;
    expect(toolMessage(messages, 'call_2')).toBe('delete_file did two');
    expect(toolMessage(messages, 'call_1')).toMatch(/declined/);
    expectEveryCallAnsweredOnce(third.output);
  });

  it('needsApproval as a predicate of (args, annotations, runContext) decides per call', async () => {
    const { model } = await scripted([
      {
        toolCalls: [
          { id: 'call_small', name: 'pay', arguments: { target: '5' } },
          { id: 'call_big', name: 'pay', arguments: { target: '5000' } },
        ],
      },
      { text: 'Paid.' },
    ]);
    const seen: unknown[][] = [];
    const annotations: ToolAnnotations = { idempotentHint: false };
    const pay = recordingTool('pay', {
      annotations,
      needsApproval: (args, toolAnnotations, runContext) => {
        seen.push([args, toolAnnotations, runContext]);
        const limit = (runContext as { limit: number }).limit;
        return Number((args as { target: string }).target) > limit;
      },
    });
    const agent = new Agent({ name: 'test', model, tools: [pay.definition] });

    const result = await agent
      .execute({ threadId: 't-predicate', messages: 'pay', runContext: { limit: 100 } })
      .result();

    expect(result.status).toBe('paused');
    expect(result.interrupts.map((interrupt) => interrupt.callId)).toEqual(['call_big']);
    expect(pay.calls).toEqual([{ target: '5' }]);
    expect(seen).toEqual([
      [{ target: '5' }, annotations, { limit: 100 }],
      [{ target: '5000' }, annotations, { limit: 100 }],
    ]);
  });

  it('an async predicate that says no lets every call run', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_1', name: 'pay', arguments: { target: '1' } }] },
      { text: 'Paid.' },
    ]);
    const pay = recordingTool('pay', { needsApproval: async () => false });
    const agent = new Agent({ name: 'test', model, tools: [pay.definition] });

    const result = await agent.execute({ messages: 'pay' }).result();

    expect(result.status).toBe('completed');
    expect(pay.calls).toEqual([{ target: '1' }]);
  });

  it('approvalPolicy destructiveToolsNeedApproval holds destructive and unannotated tools only', async () => {
    const { model } = await scripted([
      {
        toolCalls: [
          { id: 'call_read', name: 'read_only', arguments: { target: 'r' } },
          { id: 'call_safe', name: 'additive', arguments: { target: 's' } },
          { id: 'call_plain', name: 'unannotated', arguments: { target: 'u' } },
          { id: 'call_rm', name: 'destructive', arguments: { target: 'd' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const readOnly = recordingTool('read_only', { annotations: { readOnlyHint: true } });
    const additive = recordingTool('additive', { annotations: { destructiveHint: false } });
    const unannotated = recordingTool('unannotated');
    const destructive = recordingTool('destructive', { annotations: { destructiveHint: true } });
    const agent = new Agent({
      name: 'test',
      model,
      approvalPolicy: destructiveToolsNeedApproval,
      tools: [readOnly, additive, unannotated, destructive].map((entry) => entry.definition),
    });

    const result = await agent.execute({ threadId: 't-policy', messages: 'go' }).result();

    expect(result.status).toBe('paused');
    expect(result.interrupts.map((interrupt) => [interrupt.callId, interrupt.mode])).toEqual([
      ['call_plain', 'approval'],
      ['call_rm', 'approval'],
    ]);
    expect(readOnly.calls).toHaveLength(1);
    expect(additive.calls).toHaveLength(1);
    expect(unannotated.calls).toEqual([]);
    expect(destructive.calls).toEqual([]);
  });

  it('the policy cannot waive a tool’s own needsApproval, and receives the tool', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_1', name: 'guarded', arguments: { target: 'x' } }] },
      { text: 'Done.' },
    ]);
    const guarded = recordingTool('guarded', {
      needsApproval: true,
      annotations: { readOnlyHint: true },
    });
    const policyTools: string[] = [];
    const agent = new Agent({
      name: 'test',
      model,
      approvalPolicy: (args, annotations, runContext, policyTool) => {
        policyTools.push(policyTool.name);
        return destructiveToolsNeedApproval(args, annotations, runContext, policyTool);
      },
      tools: [guarded.definition],
    });

    const result = await agent.execute({ messages: 'go' }).result();

    expect(result.status).toBe('paused');
    expect(guarded.calls).toEqual([]);
    expect(policyTools).toEqual(['guarded']);
  });

  it('destructiveToolsNeedApproval follows MCP defaults', () => {
    const probe = (annotations?: ToolAnnotations) =>
      destructiveToolsNeedApproval({}, annotations, undefined, recordingTool('t').definition);
    expect(probe()).toBe(true);
    expect(probe({})).toBe(true);
    expect(probe({ destructiveHint: true })).toBe(true);
    expect(probe({ destructiveHint: false })).toBe(false);
    expect(probe({ readOnlyHint: true })).toBe(false);
    expect(probe({ readOnlyHint: true, destructiveHint: true })).toBe(false);
    expect(probe({ title: 'Open world', openWorldHint: true })).toBe(true);
  });

  it('a policy that throws holds that call for approval; its sibling call runs to its end', async () => {
    const ran: string[] = [];
    const pay = tool({
      name: 'pay',
      description: 'Pays',
      input: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        if (to === 'a') await new Promise((resolve) => setTimeout(resolve, 100));
        ran.push(to);
        return `paid ${to}`;
      },
    });
    const agent = new Agent({
      name: 'payments',
      history: new MemoryHistoryStore(),
      model: mockModel([
        toolCallTurn([
          { name: 'pay', arguments: { to: 'a' }, callId: 'c_a' },
          { name: 'pay', arguments: { to: 'b' }, callId: 'c_b' },
        ]),
      ]),
      tools: [pay],
      approvalPolicy: (args) => {
        if ((args as { to: string }).to === 'b') throw new Error('policy service down');
        return false;
      },
    });

    const result = await agent.execute({ threadId: 't', messages: 'pay a and b' }).result();

    expect(result.status).toBe('paused');
    expect(result.interrupts.map((interrupt) => interrupt.callId)).toEqual(['c_b']);
    expect(ran).toEqual(['a']);
    const outputs = result.output.filter((item) => item.type === 'function_call_output');
    expect(JSON.stringify(outputs)).toContain('paid a');
  });
});
