import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { SwitchboardError, isSwitchboardError } from './switchboard-error.ts';

describe('isSwitchboardError', () => {
  it('recognises a SwitchboardError, optionally of one code', () => {
    const error = new SwitchboardError('http_status', 'HTTP 404', { details: { status: 404 } });
    expect(isSwitchboardError(error)).toBe(true);
    expect(isSwitchboardError(error, 'http_status')).toBe(true);
    expect(isSwitchboardError(error, 'timeout')).toBe(false);
  });

  it('rejects look-alikes: plain errors and objects with a code', () => {
    const lookAlike = Object.assign(new Error('x'), { code: 'timeout' });
    expect(isSwitchboardError(lookAlike)).toBe(false);
    expect(isSwitchboardError({ code: 'timeout', message: 'x' }, 'timeout')).toBe(false);
    expect(isSwitchboardError(null)).toBe(false);
    expect(isSwitchboardError('timeout')).toBe(false);
  });

  it('recognises an error made by a second copy of the module, where instanceof fails', async () => {
    vi.resetModules();
    const copy = await import('./switchboard-error.ts');
    expect(copy.SwitchboardError).not.toBe(SwitchboardError);
    const foreign = new copy.SwitchboardError('timeout', 'slow', { details: { which: 'idle' } });
    expect(foreign instanceof SwitchboardError).toBe(false);
    expect(isSwitchboardError(foreign, 'timeout')).toBe(true);
    expect(copy.isSwitchboardError(new SwitchboardError('aborted', 'stop'), 'aborted')).toBe(true);
  });

  it('keeps the marker out of JSON, spreads and equality', () => {
    const error = new SwitchboardError('model_error', 'HTTP 500', { details: { status: 500 } });
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    const twin = {
      ...new SwitchboardError('model_error', 'HTTP 500', { details: { status: 500 } }),
    };
    expect({ ...error }).toEqual(twin);
    expect(JSON.stringify(error)).not.toContain('switchboard');
  });
});

describe('SwitchboardError details', () => {
  it('narrow to the code after isSwitchboardError(error, code)', () => {
    const error: unknown = new SwitchboardError('run_claimed', 'claimed', {
      details: { runId: 'r1', status: 'running' },
    });
    if (!isSwitchboardError(error, 'run_claimed')) throw new Error('not narrowed');
    expectTypeOf(error.code).toEqualTypeOf<'run_claimed'>();
    expectTypeOf(error.details?.runId).toEqualTypeOf<string | undefined>();
    expect(error.details).toEqual({ runId: 'r1', status: 'running' });
  });

  it('are checked against the code where an error is made', () => {
    // @ts-expect-error -- `http_status` carries a numeric status.
    void new SwitchboardError('http_status', 'x', { details: { status: '404' } });
    // @ts-expect-error -- `aborted` carries no details.
    void new SwitchboardError('aborted', 'x', { details: { reason: 'stop' } });
    // A code known only at run time accepts another error's details as they are.
    const original: SwitchboardError = new SwitchboardError('mcp_error', 'x', {
      details: { code: -32000 },
    });
    const copy = new SwitchboardError(original.code, 'y', { details: { ...original.details } });
    expectTypeOf(copy).toEqualTypeOf<SwitchboardError>();
    expect(copy.details).toEqual({ code: -32000 });
  });
});
