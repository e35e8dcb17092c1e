import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import {
  eraPrior,
  isServerChangedError,
  needsDiscovery,
  retryReason,
  shouldFallBackToSse,
  transportKind,
  type FailedAttempt,
} from './connect-plan.ts';

const discover = { supportedVersions: ['2026-07-28'] };
const httpStatus = (status: number): SwitchboardError =>
  new SwitchboardError('http_status', `HTTP ${status}`, { details: { status } });
const unsupported = new SwitchboardError('unsupported_protocol_version', 'no');
const refused = new SwitchboardError('connection_refused', 'down');

describe('transportKind', () => {
  it.each([
    { custom: true, configured: 'sse', learned: undefined, expected: 'custom' },
    { custom: false, configured: 'sse', learned: 'streamable-http', expected: 'sse' },
    { custom: false, configured: 'streamable-http', learned: 'sse', expected: 'streamable-http' },
    { custom: false, configured: 'auto', learned: undefined, expected: 'auto' },
    { custom: false, configured: 'auto', learned: 'sse', expected: 'sse' },
    { custom: false, configured: 'auto', learned: 'streamable-http', expected: 'streamable-http' },
    { custom: false, configured: 'auto', learned: 'custom', expected: 'auto' },
  ] as const)('$configured (custom $custom, learned $learned) → $expected', (row) => {
    expect(
      transportKind({ custom: row.custom, configured: row.configured, learned: row.learned }),
    ).toBe(row.expected);
  });
});

describe('eraPrior and needsDiscovery', () => {
  it.each([
    { kind: 'sse', known: undefined, prior: { kind: 'legacy' } },
    { kind: 'streamable-http', known: undefined, prior: undefined },
    { kind: 'streamable-http', known: { protocolEra: 'legacy' }, prior: { kind: 'legacy' } },
    { kind: 'custom', known: { protocolEra: 'legacy' }, prior: { kind: 'legacy' } },
    {
      kind: 'streamable-http',
      known: { protocolEra: 'modern', discover },
      prior: { kind: 'modern', discover },
    },
    { kind: 'streamable-http', known: { protocolEra: 'modern' }, prior: undefined },
    { kind: 'streamable-http', known: { protocolEra: 'modern', discover: {} }, prior: undefined },
  ] as const)('$kind with $known → $prior', ({ kind, known, prior }) => {
    expect(eraPrior(kind, known)).toEqual(prior);
    expect(needsDiscovery(kind, known)).toBe(prior === undefined);
  });

  it('always needs discovery in auto mode', () => {
    expect(needsDiscovery('auto', { protocolEra: 'legacy' })).toBe(true);
  });
});

describe('shouldFallBackToSse', () => {
  it.each([
    { error: httpStatus(404), failedStatus: 404, expected: true },
    { error: httpStatus(405), failedStatus: 405, expected: true },
    { error: httpStatus(400), failedStatus: 400, expected: true },
    { error: httpStatus(404), failedStatus: undefined, expected: false },
    { error: httpStatus(404), failedStatus: 400, expected: false },
    { error: httpStatus(500), failedStatus: 500, expected: false },
    { error: httpStatus(401), failedStatus: 401, expected: false },
    { error: refused, failedStatus: 404, expected: false },
    { error: new Error('HTTP 404'), failedStatus: 404, expected: false },
  ])('$error.message (handshake $failedStatus) → $expected', (row) => {
    const handshake = {
      initializeSucceeded: false,
      sessionIdReadable: false,
      ...(row.failedStatus === undefined ? {} : { failedStatus: row.failedStatus }),
    };
    expect(shouldFallBackToSse(row.error, handshake)).toBe(row.expected);
  });
});

describe('retryReason', () => {
  const attempt = (change: Partial<FailedAttempt>): FailedAttempt => ({
    error: refused,
    stopped: false,
    hadSessionId: false,
    usedPrior: false,
    succeeded: false,
    ...change,
  });
  it.each([
    {
      name: '404 with a session id',
      change: { error: httpStatus(404), hadSessionId: true },
      expected: 'session-expired',
    },
    { name: '404 without a session id', change: { error: httpStatus(404) }, expected: undefined },
    {
      name: '404 after close or abort',
      change: { error: httpStatus(404), hadSessionId: true, stopped: true },
      expected: undefined,
    },
    {
      name: '400 from a prior',
      change: { error: httpStatus(400), usedPrior: true },
      expected: 'stale-prior',
    },
    {
      name: 'unsupported version from a prior',
      change: { error: unsupported, usedPrior: true },
      expected: 'stale-prior',
    },
    {
      name: '400 from a prior that worked before',
      change: { error: httpStatus(400), usedPrior: true, succeeded: true },
      expected: undefined,
    },
    { name: '400 without a prior', change: { error: httpStatus(400) }, expected: undefined },
    {
      name: 'a plain Error',
      change: { error: new Error('404'), hadSessionId: true },
      expected: undefined,
    },
    {
      name: 'connection refused',
      change: { usedPrior: true, hadSessionId: true },
      expected: undefined,
    },
  ] as const)('$name → $expected', ({ change, expected }) => {
    expect(retryReason(attempt(change))).toBe(expected);
  });
});

describe('isServerChangedError', () => {
  it.each([
    { error: unsupported, expected: true },
    { error: httpStatus(400), expected: true },
    { error: httpStatus(404), expected: false },
    { error: refused, expected: false },
    { error: new Error('unsupported_protocol_version'), expected: false },
    { error: undefined, expected: false },
  ])('$error → $expected', ({ error, expected }) => {
    expect(isServerChangedError(error)).toBe(expected);
  });
});
