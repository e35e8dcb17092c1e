import { describe, expect, it } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { checkAuthorizationCallback, describeOAuthServer } from './authorization-callback.ts';

const CODE = 'authorization-code-secret-42';
const WHERE = describeOAuthServer('https://user:password@mcp.example/mcp?x=1#y');

function failure(query: Record<string, string>, expected: string | undefined): SwitchboardError {
  try {
    checkAuthorizationCallback(new URLSearchParams(query), expected, WHERE);
  } catch (error) {
    if (isSwitchboardError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('checkAuthorizationCallback', () => {
  it('returns a copy of a response whose state matches', () => {
    const query = new URLSearchParams({ code: CODE, state: 's', iss: 'https://as.example' });
    const checked = checkAuthorizationCallback(query, 's', WHERE);
    expect(checked).not.toBe(query);
    expect(checked.toString()).toBe(query.toString());
  });

  it('rejects a state mismatch (checked first), a missing state and none issued', () => {
    for (const [query, expected] of [
      [{ code: CODE, state: 'other' }, 's'],
      [{ code: CODE }, 's'],
      [{ code: CODE, state: 's' }, undefined],
      [{ error: 'access_denied', state: 'other' }, 's'],
    ] as const) {
      const error = failure(query, expected);
      expect(error.code).toBe('needs_auth');
      expect(error.details).toEqual({ reason: 'state_mismatch' });
      expect(error.message).not.toContain(CODE);
    }
  });

  it('quotes error and error_description of a denial, never the code', () => {
    const error = failure(
      {
        error: 'access_denied',
        error_description: `No thanks (code was ${CODE})\n`,
        code: CODE,
        state: 's',
      },
      's',
    );
    expect(error.code).toBe('needs_auth');
    expect(error.details).toMatchObject({ reason: 'denied', error: 'access_denied' });
    expect(error.message).toContain('access_denied');
    expect(error.message).toContain('No thanks');
    expect(error.message).not.toContain(CODE);
    expect(JSON.stringify(error.details)).not.toContain(CODE);
  });

  it('rejects an answer without code or error', () => {
    const error = failure({ state: 's' }, 's');
    expect(error.details).toEqual({ reason: 'invalid_response' });
  });

  it('labels the server without credentials, query or fragment', () => {
    expect(WHERE).toBe('OAuth for https://mcp.example/mcp');
  });
});
