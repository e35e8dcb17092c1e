import { Agent, MemoryHistoryStore, tool, type ChatToolCallPart } from '@switchboard/core';
import { mockModel, type MockTurn } from '@switchboard/core/testing';
import { act, cleanup, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InterruptView } from './interrupt-view.tsx';
import { useAgent } from './use-agent.ts';

afterEach(cleanup);

function callTurn(name: string, args: unknown, callId: string): MockTurn {
  return [
    { type: 'tool.call', callId, name, arguments: JSON.stringify(args) },
    { type: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
  ];
}

function textTurn(text: string): MockTurn {
  return [
    { type: 'text.delta', delta: text },
    { type: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
  ];
}

/** A lead agent whose `cleaner` sub-agent deletes a file after approval. */
function agents(deleted: string[]) {
  const history = new MemoryHistoryStore();
  const deleteFile = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    annotations: { destructiveHint: true },
    execute: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const cleaner = new Agent({
    name: 'cleaner',
    model: mockModel([
      callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete'),
      textTurn('Deleted /tmp/a.'),
    ]),
    history,
    tools: [deleteFile],
  });
  return new Agent({
    name: 'lead',
    model: mockModel([
      callTurn('cleaner', { input: 'Delete /tmp/a.' }, 'outer'),
      textTurn('Done.'),
    ]),
    history,
    tools: [cleaner.asTool({ description: 'Cleans up.' })],
  });
}

function outerCall(
  messages: ReturnType<typeof useAgent>['messages'],
): ChatToolCallPart | undefined {
  return messages
    .flatMap((message) => message.parts)
    .find((part): part is ChatToolCallPart => part.type === 'tool-call' && part.callId === 'outer');
}

describe('useAgent with a sub-agent', () => {
  it('shows the nested run inside the call and resolves the nested approval through the parent', async () => {
    const deleted: string[] = [];
    const lead = agents(deleted);
    const { result } = renderHook(() => useAgent(lead, { threadId: 'parent' }));
    await act(async () => {
      await result.current.send('Clean up.');
    });

    expect(result.current.status).toBe('paused');
    expect(result.current.interrupts).toMatchObject([
      { callId: 'outer', mode: 'approval', nested: { agent: 'cleaner', toolName: 'delete_file' } },
    ]);
    const waiting = outerCall(result.current.messages);
    expect(waiting?.state).toBe('waiting');
    expect(waiting?.nested?.[0]?.parts).toMatchObject([
      { type: 'tool-call', callId: 'inner_delete', toolName: 'delete_file', state: 'waiting' },
    ]);

    // The approval dialog shows the nested call; its answer goes to the outer call.
    const interrupt = result.current.interrupts[0]!;
    render(
      <InterruptView
        interrupt={interrupt}
        onResolve={(action) => result.current.resolve(interrupt.callId, action)}
      />,
    );
    expect(screen.getByLabelText('Asked inside').textContent).toBe('Asked inside cleaner');
    expect(screen.getByText('delete_file')).toBeTruthy();
    expect(screen.getByLabelText('Arguments').textContent).toContain('/tmp/a');
    act(() => screen.getByRole('button', { name: /approve/i }).click());
    await waitFor(() => expect(result.current.status).toBe('idle'));

    expect(result.current.status).toBe('idle');
    expect(deleted).toEqual(['/tmp/a']);
    const done = outerCall(result.current.messages);
    expect(done?.state).toBe('done');
    expect(done?.output?.text).toBe('Deleted /tmp/a.');
    expect(done?.nested?.[0]?.parts).toMatchObject([
      {
        type: 'tool-call',
        callId: 'inner_delete',
        state: 'done',
        output: { text: 'deleted /tmp/a' },
      },
      { type: 'text', text: 'Deleted /tmp/a.' },
    ]);
  });
});
