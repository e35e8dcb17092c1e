import { startPlaygroundServers } from '../apps/playground/servers/playground-servers.ts';
import { playgroundEnvironment } from './tests/playground-environment.ts';

/**
 * Starts the playground servers on free ports (all on 127.0.0.1) and hands their URLs to the
 * test workers through environment variables. The returned function stops them after the run.
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
  return async () => {
    await servers.close();
  };
}
