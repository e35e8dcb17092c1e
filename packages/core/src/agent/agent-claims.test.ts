import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { JsonlHistoryStore } from '../node/jsonl-history-store.ts';
import { Agent } from './agent.ts';
import { closeScriptedModelServers, deferred, scripted } from './agent-test-support.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import { DELETE_CALL, describeRunClaims, guardedTool } from './run-claims-contract.ts';

describeRunClaims('MemoryHistoryStore (two Agents, one store)', () => {
  const store = new MemoryHistoryStore();
  return { first: store, second: store };
});

describeRunClaims('JsonlHistoryStore (two instances, one directory)', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-claims-'));
  return {
    first: new JsonlHistoryStore({ directory }),
    second: new JsonlHistoryStore({ directory }),
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
});

describe('A claim and a refused resume at the same moment', () => {
  afterEach(async () => {
    await closeScriptedModelServers();
  });

  it('a refused answer recording its numbering between load and claim does not make the valid resume lose', async () => {
    const { model } = await scripted([DELETE_CALL, { text: 'Done.' }]);
    const guarded = guardedTool();
    const refusedDone = deferred();
    /** Holds the first claim of a resume until the refused resume has finished. */
    class GatedStore extends MemoryHistoryStore {
      gate = false;
      override async compareAndSetRun(run: RunRecord, expectedVersion: number) {
        if (this.gate && run.status === 'running') {
          this.gate = false;
          await refusedDone.promise;
        }
        return await super.compareAndSetRun(run, expectedVersion);
      }
    }
    const history = new GatedStore();
    const agentOn = () => new Agent({ name: 'c', model, history, tools: [guarded.definition] });
    await agentOn().execute({ threadId: 't', messages: 'delete' }).result();

    history.gate = true;
    const valid = agentOn()
      .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
      .result();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await agentOn()
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'call_delete', action: 'maybe' as Resolution['action'] }],
      })
      .result();
    refusedDone.resolve();

    expect(refused.error?.code).toBe('invalid_resolution');
    expect((await valid).status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
  });
});
