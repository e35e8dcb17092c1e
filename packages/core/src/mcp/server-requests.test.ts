import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { ActiveCall } from './call/resume-state.ts';
import type { ElicitationRouter } from './elicitation-router.ts';
import { answerServerRequests } from './server-requests.ts';

/** A stand-in `Client` that keeps what `answerServerRequests` registers. */
function registered(callKey: string | undefined, active?: ActiveCall) {
  const client = { setNotificationHandler: () => undefined } as unknown as Client;
  answerServerRequests(client, {
    router: { callFor: () => callKey } as unknown as ElicitationRouter,
    activeCalls: new Map(active === undefined ? [] : [['k', active]]),
    onToolsChanged: () => undefined,
    onElicitationComplete: () => undefined,
    onResourceUpdated: () => undefined,
    onResourcesChanged: () => undefined,
    onPromptsChanged: () => undefined,
  });
  const handler = client.fallbackRequestHandler;
  if (handler === undefined) throw new Error('no fallback handler registered');
  return (method: string, params?: unknown) =>
    handler({ jsonrpc: '2.0', id: 1, method, params } as never, { mcpReq: { id: 1 } } as never);
}

describe('answerServerRequests: elicitation/create past the SDK strict check', () => {
  it('hands any object schema to the call it belongs to, unchanged', async () => {
    const asked: unknown[] = [];
    const handle = registered('k', {
      ask: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { x: null } };
      },
    });
    const requestedSchema = {
      type: 'object',
      properties: { x: { anyOf: [{ type: 'string', enum: ['a'] }, { type: 'null' }] } },
    };
    await expect(handle('elicitation/create', { message: 'm', requestedSchema })).resolves.toEqual({
      action: 'accept',
      content: { x: null },
    });
    expect(asked).toEqual([{ mode: 'form', message: 'm', requestedSchema }]);
  });

  it('refuses a schema that is not an object with -32602 and the reason', async () => {
    const handle = registered('k', { ask: async () => ({ action: 'accept' }) });
    await expect(
      handle('elicitation/create', { requestedSchema: { type: 'number' } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'must describe an object (type "object"), got type "number"',
      ),
    });
  });

  it('cancels a request outside any call, and leaves other methods "Method not found"', async () => {
    const handle = registered(undefined);
    await expect(
      handle('elicitation/create', { requestedSchema: { type: 'object' } }),
    ).resolves.toEqual({ action: 'cancel' });
    await expect(handle('sampling/createMessage', {})).rejects.toMatchObject({ code: -32601 });
    await expect(handle('roots/list')).rejects.toMatchObject({ code: -32601 });
  });
});
