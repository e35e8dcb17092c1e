import { startPlaygroundServers } from '../apps/playground/servers/playground-servers.ts';
import { playgroundEnvironment } from './tests/playground-environment.ts';

/**
 * Starts the playground servers once per run, on free ports (all on 127.0.0.1) — the page, the
 * everything server, the demo server and the scripted model — and hands their URLs to the test
 * workers through environment variables. The returned function stops them after the run. Tests
 * isolate their state with fresh browser contexts (IndexedDB and localStorage are per context);
 * a test that flips a server's fault switches starts its own demo server.
 *
 * The page is the production build served by `vite preview`: a page load is one bundle instead
 * of hundreds of dev modules, several times faster on a busy machine. Set
 * `SWITCHBOARD_E2E_DEV_SERVER=1` to test against the Vite dev server that `npm start` runs.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const servers = await startPlaygroundServers({
    mode: process.env['SWITCHBOARD_E2E_DEV_SERVER'] === '1' ? 'dev' : 'preview',
    logLevel: 'error',
  });
  process.env[playgroundEnvironment.url] = servers.urls.playground;
  process.env[playgroundEnvironment.mcpUrl] = servers.urls.mcp;
  process.env[playgroundEnvironment.modelBaseUrl] = servers.urls.modelBaseUrl;
  process.env[playgroundEnvironment.demoUrl] = servers.urls.demo;
  return async () => {
    await servers.close();
  };
}
