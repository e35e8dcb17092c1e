import { afterEach, describe, expect, it } from 'vitest';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { branchPath, selectedLeaf } from '../history/run-tree.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  scripted,
} from './agent-test-support.ts';
import { DELETE_CALL, guardedTool } from './run-claims-contract.ts';

afterEach(closeScriptedModelServers);

/** The user and assistant texts of a request to the scripted model, system prompt left out. */
function conversation(messages: readonly { role: string; content?: unknown }[] | undefined) {
  return (messages ?? [])
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role}: ${String(message.content)}`);
}

describe('Agent branches (docs/conversations.md, "Branches")', () => {
  it('a run from a branch point reads only its ancestors; the next message follows the newest branch', async () => {
    const { server, model } = await scripted([
      { text: 'Hello.' },
      { text: 'Paris.' },
      { text: 'Rome.' },
      { text: 'About 2.8 million.' },
    ]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'branches', model, history });
    const first = await agent.execute({ threadId: 't', messages: 'Hi' }).result();
    await agent.execute({ threadId: 't', messages: 'Capital of France?' }).result();
    const edited = await agent
      .execute({ threadId: 't', messages: 'Capital of Italy?', parentRunId: first.runId })
      .result();
    await agent.execute({ threadId: 't', messages: 'How many people live there?' }).result();

    expect(conversation(server.requests[2]?.messages)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Capital of Italy?',
    ]);
    // No parent given: the newest branch (the edit), never the abandoned "France" answer.
    expect(conversation(server.requests[3]?.messages)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Capital of Italy?',
      'assistant: Rome.',
      'user: How many people live there?',
    ]);
    const runs = await history.loadRuns('t');
    expect(runs.map((run) => run.parentRunId)).toEqual([
      null,
      first.runId,
      first.runId,
      edited.runId,
    ]);
    // Each run stores only its own items: an edit copies nothing of the thread.
    expect(runs.map((run) => run.items.length)).toEqual([2, 2, 2, 2]);
  });

  it('the next message follows the stored selection; a bad branch point fails and writes nothing', async () => {
    const { server, model } = await scripted([
      { text: 'A.' },
      { text: 'B.' },
      { text: 'After A.' },
    ]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'branches', model, history });
    const a = await agent.execute({ threadId: 't', messages: 'a' }).result();
    await agent.execute({ threadId: 't', messages: 'b', parentRunId: null }).result();
    await history.selectBranch('t', { leafRunId: a.runId, selectedAt: Date.now() });

    const refused = await agent
      .execute({ threadId: 't', messages: 'x', parentRunId: 'no-such-run' })
      .result();
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    expect(await history.loadRuns('t')).toHaveLength(2);

    await agent.execute({ threadId: 't', messages: 'and then?' }).result();
    expect(conversation(server.requests[2]?.messages)).toEqual([
      'user: a',
      'assistant: A.',
      'user: and then?',
    ]);
    const runs = await history.loadRuns('t');
    expect(
      branchPath(runs, selectedLeaf(runs, await history.loadBranchSelection('t'))).map(
        (run) => run.items[0],
      ),
    ).toEqual([
      { type: 'message', role: 'user', content: 'a' },
      { type: 'message', role: 'user', content: 'and then?' },
    ]);
  });

  it('a pause stays answerable after a switch away and back; a new branch closes it as unanswered', async () => {
    const { model } = await scripted([
      DELETE_CALL,
      { text: 'Deleted.' },
      { text: 'Kept.' },
      DELETE_CALL,
      { text: 'Nothing deleted.' },
    ]);
    const history = new MemoryHistoryStore();
    const guarded = guardedTool();
    const agent = new Agent({ name: 'branches', model, history, tools: [guarded.definition] });
    const first = await agent.execute({ threadId: 't', messages: 'delete it' }).result();
    expect(first.status).toBe('paused');
    // The user looks at the (only) other branch and back: selection alone changes no run.
    await history.selectBranch('t', { leafRunId: first.runId, selectedAt: Date.now() });
    const resumed = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
      .result();
    expect(resumed.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);

    // Pause again on a second branch, then branch off before it: the pause is closed.
    const kept = await agent
      .execute({ threadId: 't', messages: 'keep it', parentRunId: null })
      .result();
    const paused = await agent.execute({ threadId: 't', messages: 'delete again' }).result();
    expect(paused.status).toBe('paused');
    const regenerated = await agent
      .execute({ threadId: 't', messages: 'delete again', parentRunId: kept.runId })
      .result();
    expect(regenerated.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
    const runs = await history.loadRuns('t');
    expect(runs.map((run) => run.status)).toEqual([
      'completed',
      'completed',
      'cancelled',
      'completed',
    ]);
    for (const run of runs) expectEveryCallAnsweredOnce(run.items);
    expect(runs[2]?.items.at(-1)).toMatchObject({
      type: 'function_call_output',
      output: { isError: true, error: { code: 'unanswered' } },
    });
    const late = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
      .result();
    expect(late).toMatchObject({ status: 'failed', error: { code: 'not_paused' } });
    expect(guarded.runs).toEqual(['/tmp/a']);
  });
});
