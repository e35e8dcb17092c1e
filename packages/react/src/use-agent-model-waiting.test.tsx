import { Agent, MemoryHistoryStore } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { startStallingModelServer, type StallingModelServer } from '@switchboard/fixtures';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useAgent } from './use-agent.ts';

describe('useAgent().modelWaiting', () => {
  let server: StallingModelServer;

  beforeEach(async () => {
    // Never sends response headers: what a request queued behind held connections looks like.
    server = await startStallingModelServer({ stall: 'before-headers' });
  });
  afterEach(async () => {
    cleanup();
    await server.close();
  });

  it('is set while the model call has no response headers, and cleared when the run ends', async () => {
    const agent = new Agent({
      name: 'waiting',
      model: openaiChatModel({
        model: 'stalling',
        apiKey: 'x',
        baseURL: `${server.url}/v1`,
        waitingNoticeMs: 50,
      }),
      history: new MemoryHistoryStore(),
    });
    const { result } = renderHook(() => useAgent(agent));
    expect(result.current.modelWaiting).toBeUndefined();
    let sending: Promise<{ status: string }> | undefined;
    act(() => {
      sending = result.current.send('hi');
    });
    await waitFor(() => expect(result.current.modelWaiting).toBeDefined());
    expect(result.current.modelWaiting).toMatchObject({
      model: 'openai-chat/stalling',
      host: new URL(server.url).host,
    });
    expect(result.current.modelWaiting?.since).toBeLessThanOrEqual(Date.now());
    // Still waiting, not failed: the notice does not abort the request.
    expect(result.current.status).toBe('streaming');
    expect(result.current.error).toBeUndefined();
    let outcome: string | undefined;
    await act(async () => {
      result.current.stop();
      outcome = (await sending)?.status;
    });
    expect(outcome).toBe('cancelled');
    expect(result.current.modelWaiting).toBeUndefined();
  });
});
