import { afterAll, afterEach, beforeAll } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';

/**
 * The demo server both warm-cache tests list from (45 tools in pages of 20, both eras), started
 * once per file and with its fault switches reset after each test. Call at the top of a test
 * file; read the server through the returned getter inside tests.
 */
export function useWarmCacheDemoServer(): {
  demo: () => DemoServer;
  eras: readonly (readonly [string, () => string])[];
} {
  let demo: DemoServer | undefined;
  beforeAll(async () => {
    demo = await startDemoServer({ toolCount: 45, pageSize: 20 });
  });
  afterAll(async () => {
    await demo?.close();
  });
  afterEach(() => {
    demo?.faults.reset();
  });
  const current = (): DemoServer => {
    if (demo === undefined) throw new Error('The demo server is not started yet.');
    return demo;
  };
  return {
    demo: current,
    eras: [
      ['2025', () => current().legacyUrl],
      ['2026-07-28', () => current().modernUrl],
    ],
  };
}
