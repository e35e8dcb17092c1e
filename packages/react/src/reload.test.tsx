// Installs fake-indexeddb's IDB* globals (jsdom has none); each test uses its own IDBFactory.
import 'fake-indexeddb/auto';
import { Agent, IndexedDbHistoryStore, tool } from '@switchboard/core';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatHarness, setupUser, startScriptedModel } from './test-support.tsx';

const deleted: string[] = [];
const deleteFile = tool({
  name: 'delete_file',
  description: 'Deletes a file',
  input: z.object({ path: z.string() }),
  needsApproval: true,
  annotations: { destructiveHint: true },
  execute: ({ path }) => {
    deleted.push(path);
    return `Deleted ${path}.`;
  },
});

describe('reload with a paused run (IndexedDB history)', () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    cleanup();
    deleted.length = 0;
    await server?.close();
  });

  it('shows the same pending approval after a remount with a new agent and store, and approving it completes the run', async () => {
    const started = await startScriptedModel([
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'notes.txt' }, id: 'call_del' }] },
      { text: 'The file is gone.' },
    ]);
    server = started.server;
    const factory = new IDBFactory();
    const makeAgent = () =>
      new Agent({
        name: 'files',
        model: started.model,
        tools: [deleteFile],
        history: new IndexedDbHistoryStore({ indexedDB: factory, databaseName: 'reload-test' }),
      });
    const user = setupUser();

    // First "page": the run pauses on the approval.
    const firstAgent = makeAgent();
    const first = render(
      <ChatHarness agent={firstAgent} threadId="thread-1" prompt="delete notes.txt" />,
    );
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('paused'));
    expect(screen.getByText('delete_file')).toBeTruthy();
    first.unmount();
    expect(deleted).toEqual([]);

    // Second "page": new agent, new store, same database.
    render(<ChatHarness agent={makeAgent()} threadId="thread-1" />);
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('paused'));
    const dialog = screen.getByText('delete_file').closest('section') as HTMLElement;
    expect(dialog.dataset.callId).toBe('call_del');
    expect(dialog.querySelector('pre')?.textContent).toBe(
      JSON.stringify({ path: 'notes.txt' }, null, 2),
    );
    expect(dialog.querySelector('[data-hint="destructive"]')?.textContent).toBe('destructive');
    expect(screen.getByText('delete notes.txt')).toBeTruthy();
    expect(screen.getByTestId('call-delete_file').dataset.state).toBe('waiting');
    // A destructive tool: keyboard focus starts on Reject.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Reject' }));

    await user.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    expect(deleted).toEqual(['notes.txt']);
    expect(screen.getByText('The file is gone.')).toBeTruthy();
    expect(screen.getByTestId('call-delete_file').dataset.state).toBe('done');
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });
});
