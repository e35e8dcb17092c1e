import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';

/**
 * Calls run at once through `McpServer.callTool` (real HTTP on 127.0.0.1 to the demo server):
 * 2025-era pushed `elicitation/create` requests reach the call that caused them, each call gets
 * one outcome, and sessions that expire (404) are replaced under load.
 */

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  demo.faults.reset();
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

function server(url: string): McpServer {
  const created = mcpServer({ url, name: 'demo' });
  opened.push(created);
  return created;
}

describe('McpServer.callTool, several calls at once', () => {
  it.each([
    ['pushed (2025 era)', () => demo.legacyUrl],
    ['MRTR (2026-07-28)', () => demo.modernUrl],
  ])(
    "each call's elicitation reaches that call's onInput, once: %s",
    async (_era, url) => {
      const target = server(url());
      const restaurants = Array.from({ length: 6 }, (_, index) => `Place ${index}`);
      const asked = new Map<string, number>();
      const outputs = await Promise.all(
        restaurants.map((restaurant, index) =>
          target.callTool(
            'book_table',
            { restaurant },
            {
              onInput: async () => {
                asked.set(restaurant, (asked.get(restaurant) ?? 0) + 1);
                // Answers arrive out of order: the last call asked is answered first.
                await new Promise((resolve) => setTimeout(resolve, 20 * (6 - index)));
                return {
                  action: 'approve',
                  content: { name: `Guest ${index}`, date: '2026-12-24', confirm: true },
                };
              },
            },
          ),
        ),
      );
      restaurants.forEach((restaurant, index) => {
        expect(asked.get(restaurant)).toBe(1);
        expect(outputs[index]?.text).toBe(
          `Booked a table at ${restaurant} for 2 guests on 2026-12-24 (indoor) under Guest ${index}.`,
        );
      });
    },
    20_000,
  );

  it('2025 era: calls running while every session expires each get one outcome, and later calls answer', async () => {
    const target = server(demo.legacyUrl);
    expect((await target.callTool('get_weather', { city: 'Oslo' })).isError).not.toBe(true);
    const outcomes: string[][] = [];
    const calls = Array.from({ length: 30 }, (_, index) => {
      const record: string[] = [];
      outcomes.push(record);
      const call =
        index % 3 === 0
          ? target.callTool('slow_count', { count: 4, delayMs: 30 })
          : target.callTool('get_weather', { city: `City ${index}` });
      return call.then(
        (output) => record.push(output.isError === true ? 'error' : 'answered'),
        () => record.push('rejected'),
      );
    });
    setTimeout(() => demo.faults.expireSessions(), 15);
    await Promise.race([
      Promise.all(calls),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('a call never settled')), 15_000),
      ),
    ]);
    for (const record of outcomes) expect(record).toHaveLength(1);
    // The sessions did expire under the calls: some requests were answered 404. A request answered
    // 404 was not run: it is retried once on a new session, so every quick call answers (a
    // `slow_count` whose answer stream was closed by the expiry may fail).
    expect(demo.log.some((entry) => entry.rpcMethod === 'tools/call' && entry.status === 404)).toBe(
      true,
    );
    outcomes.forEach((record, index) => {
      if (index % 3 !== 0) expect(record).toEqual(['answered']);
    });
    const after = await Promise.all(
      Array.from({ length: 5 }, () => target.callTool('get_weather', { city: 'Oslo' })),
    );
    expect(after.every((output) => output.isError !== true)).toBe(true);
  }, 20_000);
});
