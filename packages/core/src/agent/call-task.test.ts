import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { FunctionCallItem, ToolOutput } from '../vocabulary/items.ts';
import type { ToolInterruptResult, ToolResume } from '../vocabulary/interrupts.ts';
import {
  CallTask,
  parseArguments,
  whenQuiet,
  type ApprovalHold,
  type CallStarter,
} from './call-task.ts';
import type { Interrupt, Resolution } from '../vocabulary/interrupts.ts';

const CALL: FunctionCallItem = {
  type: 'function_call',
  callId: 'call_1',
  name: 'do_it',
  arguments: '{"x":1}',
};

type StarterResult = ToolOutput | ToolInterruptResult | ApprovalHold;

/** A starter whose every start is recorded and settled by the test. */
function controlledStarter() {
  const starts: {
    task: CallTask;
    resume: ToolResume | undefined;
    approved: boolean;
    settle: (result: StarterResult) => void;
    fail: (error: unknown) => void;
  }[] = [];
  const start: CallStarter = (task, resume, approved) =>
    new Promise<StarterResult>((settle, fail) => {
      starts.push({ task, resume, approved, settle, fail });
    });
  return { start, starts };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const APPROVAL: Interrupt = {
  callId: 'call_1',
  toolName: 'do_it',
  arguments: { x: 1 },
  mode: 'approval',
};

describe('CallTask phases', () => {
  it('starts running, then settles with the starter’s output and notifies listeners', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    const phases: string[] = [];
    task.subscribe(() => phases.push(task.phase.phase));

    expect(task.phase).toEqual({ phase: 'running' });
    task.run();
    expect(starts).toHaveLength(1);
    expect(starts[0]?.resume).toBeUndefined();
    expect(starts[0]?.approved).toBe(false);
    starts[0]?.settle({ text: 'done' });
    await tick();

    expect(task.phase).toEqual({ phase: 'settled', output: { text: 'done' } });
    expect(phases).toEqual(['running', 'settled']);
  });

  it('onChange returns an unsubscribe function', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    let calls = 0;
    const unsubscribe = task.subscribe(() => calls++);
    task.run();
    unsubscribe();
    starts[0]?.settle({ text: 'done' });
    await tick();
    expect(calls).toBe(1);
  });

  it('a tool interrupt result waits (not live) with the interrupt and resume state', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    task.run();
    starts[0]?.settle({
      kind: 'switchboard.interrupt',
      request: {
        mode: 'url',
        message: 'Open it',
        url: 'https://example.com/x',
        elicitationId: 'el-1',
        reissued: true,
      },
      resumeState: { step: 1 },
    });
    await tick();

    expect(task.phase).toEqual({
      phase: 'waiting',
      interrupt: {
        callId: 'call_1',
        toolName: 'do_it',
        arguments: { x: 1 },
        mode: 'url',
        message: 'Open it',
        url: 'https://example.com/x',
        elicitationId: 'el-1',
        reissued: true,
      },
      resumeState: { step: 1 },
      live: false,
    });
  });

  it('an approval hold from the starter waits for approval', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    task.run();
    starts[0]?.settle({ kind: 'switchboard.approval', interrupt: APPROVAL });
    await tick();
    expect(task.phase).toEqual({ phase: 'waiting', interrupt: APPROVAL, live: false });
  });

  it('a failing starter settles with an error output (its own code when it has one)', async () => {
    const { start, starts } = controlledStarter();
    const plain = new CallTask(CALL, start);
    const hook = new CallTask(CALL, start);
    plain.run();
    hook.run();
    starts[0]?.fail(new Error('kaput'));
    starts[1]?.fail(new SwitchboardError('hook_failed', 'The afterToolCall hook failed: x'));
    await tick();

    expect(plain.phase).toEqual({
      phase: 'settled',
      output: {
        text: 'kaput',
        isError: true,
        error: { code: 'tool_execution_failed', message: 'kaput' },
      },
    });
    expect(hook.phase).toMatchObject({
      phase: 'settled',
      output: { isError: true, error: { code: 'hook_failed' } },
    });
  });

  it('resolve on a task that is not waiting throws unknown_call_id', () => {
    const task = new CallTask(CALL, controlledStarter().start);
    expect(() => task.resolve({ callId: 'call_1', action: 'approve' })).toThrowError(
      expect.objectContaining({ code: 'unknown_call_id' }),
    );
    task.settle({ text: 'x' });
    expect(() => task.resolve({ callId: 'call_1', action: 'approve' })).toThrowError(
      expect.objectContaining({ code: 'unknown_call_id' }),
    );
  });
});

describe('CallTask approvals', () => {
  it('approve runs the tool as approved', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    task.holdForApproval(APPROVAL);
    expect(starts).toHaveLength(0);

    task.resolve({ callId: 'call_1', action: 'approve' });

    expect(task.phase.phase).toBe('running');
    expect(starts).toHaveLength(1);
    expect(starts[0]?.approved).toBe(true);
    expect(starts[0]?.resume).toBeUndefined();
  });

  it('a restored approval (after a reload) runs as approved too', () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    task.restore(APPROVAL, undefined);
    task.resolve({ callId: 'call_1', action: 'approve' });
    expect(starts.map((entry) => entry.approved)).toEqual([true]);
  });

  it('reject and cancel settle with refusal outputs without starting the tool', () => {
    const { start, starts } = controlledStarter();
    const rejected = new CallTask(CALL, start);
    const cancelled = new CallTask(CALL, start);
    rejected.holdForApproval(APPROVAL);
    cancelled.holdForApproval(APPROVAL);

    rejected.resolve({ callId: 'call_1', action: 'reject' });
    cancelled.resolve({ callId: 'call_1', action: 'cancel' });

    expect(starts).toHaveLength(0);
    expect(rejected.phase).toEqual({
      phase: 'settled',
      output: {
        text: 'The user declined this tool call; it was not run.',
        isError: true,
        error: { code: 'rejected', message: 'The user declined this tool call.' },
      },
    });
    expect(cancelled.phase).toMatchObject({
      phase: 'settled',
      output: { isError: true, error: { code: 'cancelled' } },
    });
    expect((cancelled.phase as { output: ToolOutput }).output.text).toMatch(/cancelled/);
  });
});

describe('CallTask resumes', () => {
  it('a stored form interrupt re-runs the tool with the resolution and resume state', () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    const form: Interrupt = { ...APPROVAL, mode: 'form', requestedSchema: { type: 'object' } };
    task.restore(form, { token: 'abc' });
    const resolution: Resolution = { callId: 'call_1', action: 'reject' };

    task.resolve(resolution);

    expect(starts).toHaveLength(1);
    expect(starts[0]?.resume).toEqual({ resolution, resumeState: { token: 'abc' } });
    expect(starts[0]?.approved).toBe(false);
  });

  it('a live wait resolves the running tool’s requestInput; the tool is not started again', async () => {
    const { start, starts } = controlledStarter();
    const task = new CallTask(CALL, start);
    task.run();
    const answer = task.requestInput({ mode: 'form', message: 'Name?' }, { pushed: true });

    expect(task.phase).toEqual({
      phase: 'waiting',
      interrupt: {
        callId: 'call_1',
        toolName: 'do_it',
        arguments: { x: 1 },
        mode: 'form',
        message: 'Name?',
      },
      resumeState: { pushed: true },
      live: true,
    });

    const resolution: Resolution = { callId: 'call_1', action: 'approve', content: { n: 'Ada' } };
    task.resolve(resolution);
    expect(task.phase).toEqual({ phase: 'running' });
    await expect(answer).resolves.toEqual(resolution);
    starts[0]?.settle({ text: 'hello Ada' });
    await tick();

    expect(starts).toHaveLength(1);
    expect(task.phase).toEqual({ phase: 'settled', output: { text: 'hello Ada' } });
  });

  it('abandon rejects a live wait with the reason; the tool then settles', async () => {
    const task = new CallTask(CALL, async (current) => {
      try {
        await current.requestInput({ mode: 'url', url: 'https://example.com' }, undefined);
        return { text: 'answered' };
      } catch (error) {
        return { text: `gave up: ${(error as Error).message}`, isError: true };
      }
    });
    task.run();
    await tick();
    expect(task.phase).toMatchObject({ phase: 'waiting', live: true });

    task.abandon(new SwitchboardError('aborted', 'The user moved on.'));
    await tick();

    expect(task.phase).toEqual({
      phase: 'settled',
      output: { text: 'gave up: The user moved on.', isError: true },
    });
    // Once abandoned, there is nothing left to answer or abandon.
    expect(() => task.abandon(new Error('again'))).not.toThrow();
  });

  it('abandon on a task without a live wait does nothing', () => {
    const task = new CallTask(CALL, controlledStarter().start);
    task.holdForApproval(APPROVAL);
    task.abandon(new Error('x'));
    expect(task.phase).toEqual({ phase: 'waiting', interrupt: APPROVAL, live: false });
  });
});

describe('CallTask owners', () => {
  it('only the current owner stops the call; a paused (detached) call outlives its old run', () => {
    const task = new CallTask(CALL, controlledStarter().start);
    const paused = new AbortController();
    const resumed = new AbortController();
    const progress: number[] = [];
    task.attach({ signal: paused.signal, onProgress: () => progress.push(-1) });
    task.detach();
    paused.abort();
    expect(task.signal.aborted).toBe(false);

    task.attach({ signal: resumed.signal, onProgress: (update) => progress.push(update.progress) });
    task.progress({ progress: 1 });
    expect(progress).toEqual([1]);
    resumed.abort(new Error('stopped'));
    expect(task.signal.aborted).toBe(true);
    expect(task.signal.reason).toEqual(new Error('stopped'));
  });

  it('abandon aborts the call, and settling releases the owner', () => {
    const owner = new AbortController();
    const abandoned = new CallTask(CALL, controlledStarter().start);
    abandoned.attach({ signal: owner.signal, onProgress: () => undefined });
    abandoned.abandon(new Error('moved on'));
    expect(abandoned.signal.aborted).toBe(true);

    const settled = new CallTask(CALL, controlledStarter().start);
    settled.attach({ signal: owner.signal, onProgress: () => undefined });
    settled.settle({ text: 'done' });
    owner.abort();
    expect(settled.signal.aborted).toBe(false);
  });
});

describe('whenQuiet', () => {
  it('resolves at once for no tasks or tasks that are not running', async () => {
    await whenQuiet([]);
    const settled = new CallTask(CALL, controlledStarter().start);
    settled.settle({ text: 'x' });
    const waiting = new CallTask(CALL, controlledStarter().start);
    waiting.holdForApproval(APPROVAL);
    await whenQuiet([settled, waiting]);
  });

  it('waits until every task is waiting or settled', async () => {
    const { start, starts } = controlledStarter();
    const first = new CallTask(CALL, start);
    const second = new CallTask({ ...CALL, callId: 'call_2' }, start);
    first.run();
    second.run();
    let quiet = false;
    const done = whenQuiet([first, second]).then(() => (quiet = true));

    starts[0]?.settle({ text: 'one' });
    await tick();
    expect(quiet).toBe(false);

    void second.requestInput({ mode: 'form' }, undefined);
    await done;
    expect(quiet).toBe(true);
    expect(first.phase.phase).toBe('settled');
    expect(second.phase.phase).toBe('waiting');
  });
});

describe('parseArguments', () => {
  it('parses JSON, treats blank as {}, keeps anything else raw', () => {
    expect(parseArguments('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parseArguments('  ')).toEqual({});
    expect(parseArguments('{not json')).toBe('{not json');
  });
});
