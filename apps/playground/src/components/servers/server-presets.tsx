import type { PlaygroundConfig } from '../../playground-config.ts';
import {
  appsDemoServer,
  missingBuiltIns,
  oauthDemoServer,
  type ServerConfig,
} from '../../server-config.ts';
import type { ServerRegistry } from '../../server-registry.ts';

/**
 * Buttons that add the playground's own servers back: the default servers the user removed, and
 * the "Demo (OAuth)" and "Demo apps" presets while they are not in the list. Nothing shows when nothing is missing.
 */
export function ServerPresets({
  registry,
  config,
  configs,
}: {
  registry: ServerRegistry;
  config: PlaygroundConfig;
  /** The servers in the list now. */
  configs: readonly ServerConfig[];
}) {
  const missing = missingBuiltIns(configs, config);
  const oauthDemo = oauthDemoServer(config);
  const oauthDemoMissing = !configs.some(
    (server) => server.builtIn === oauthDemo.builtIn || server.name === oauthDemo.name,
  );
  const appsDemo = appsDemoServer(config);
  const appsDemoMissing = !configs.some(
    (server) => server.builtIn === appsDemo.builtIn || server.name === appsDemo.name,
  );
  return (
    <>
      {missing.length > 0 && (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="restore-servers"
          onClick={() => {
            for (const server of missing) registry.add(server);
          }}
        >
          Restore default servers
        </button>
      )}
      {oauthDemoMissing && (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="add-oauth-demo"
          title="The demo server's OAuth-protected endpoint: sign in through the local test authorization server"
          onClick={() => registry.add(oauthDemo)}
        >
          Add Demo (OAuth)
        </button>
      )}
      {appsDemoMissing && (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="add-apps-demo"
          title="The demo server's MCP Apps endpoint: tools with interactive ui:// views"
          onClick={() => registry.add(appsDemo)}
        >
          Add Demo apps
        </button>
      )}
    </>
  );
}
