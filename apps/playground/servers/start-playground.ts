/**
 * `npm start`: runs the playground on 127.0.0.1 — the everything MCP server, the demo MCP server,
 * the scripted model server and the Vite dev server — and prints where each one runs. Ctrl-C
 * (SIGINT) or SIGTERM stops them all.
 *
 * Ports default to 5173 (page), 3001 (everything MCP server), 3002 (model), 3003 (demo MCP
 * server), 3004 (the demo's OAuth authorization server) and 3005 (the MCP Apps sandbox proxy); a
 * taken port is replaced by a free one. Override with PLAYGROUND_PORT, PLAYGROUND_MCP_PORT,
 * PLAYGROUND_MODEL_PORT, PLAYGROUND_DEMO_PORT, PLAYGROUND_AUTH_PORT and PLAYGROUND_SANDBOX_PORT.
 */
import { startPlaygroundServers, type PlaygroundServers } from './playground-servers.ts';

function portFromEnvironment(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${name} must be a TCP port number (0-65535), got "${raw}".`);
  }
  return port;
}

const serviceNames = {
  playground: 'page',
  mcp: 'everything MCP server',
  model: 'model server',
  demo: 'demo MCP server',
  auth: 'OAuth authorization server',
  sandbox: 'MCP Apps sandbox proxy',
} as const;

async function main(): Promise<void> {
  const ports = {
    playgroundPort: portFromEnvironment('PLAYGROUND_PORT', 5173),
    mcpPort: portFromEnvironment('PLAYGROUND_MCP_PORT', 3001),
    modelPort: portFromEnvironment('PLAYGROUND_MODEL_PORT', 3002),
    demoPort: portFromEnvironment('PLAYGROUND_DEMO_PORT', 3003),
    authPort: portFromEnvironment('PLAYGROUND_AUTH_PORT', 3004),
    sandboxPort: portFromEnvironment('PLAYGROUND_SANDBOX_PORT', 3005),
  };
  console.log('Starting the Switchboard playground…');
  // Set once the start finished; a signal during the start finds it unset.
  const running: { servers?: PlaygroundServers } = {};
  let stopping = false;
  let firstSignalAt = 0;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // Ctrl-C reaches this process twice: from the terminal and relayed by tsx. Only a signal
      // sent later (a second Ctrl-C while stopping hangs) forces the exit.
      if (Date.now() - firstSignalAt < 1000) return;
      console.log(`\nReceived ${signal} again: exiting now.`);
      process.exit(1);
    }
    stopping = true;
    firstSignalAt = Date.now();
    console.log(`\nReceived ${signal}: stopping the servers…`);
    // While starting, `main` stops whatever started once the start returns.
    if (running.servers === undefined) return;
    void running.servers.close().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('Could not stop every server cleanly:', error);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);

  const servers = await startPlaygroundServers(ports);
  running.servers = servers;
  if (stopping) {
    // A signal arrived while starting, when there was nothing to close yet.
    await servers.close();
    console.log('Stopped.');
    process.exit(0);
  }
  const { urls, fallbacks } = servers;
  const lines = [
    '',
    'Switchboard playground is running (everything on 127.0.0.1):',
    '',
    `  Open this page:  ${urls.playground}`,
    '',
    `  MCP servers:     ${urls.mcp}`,
    '                     @modelcontextprotocol/server-everything (2025 era, Streamable HTTP)',
    `                   ${urls.demo}/modern/mcp`,
    '                     Switchboard demo server, 2026-07-28 (stateless, MRTR elicitation)',
    `                   ${urls.demo}/legacy/mcp  and  ${urls.demo}/legacy/sse`,
    '                     the same demo tools, 2025 era (sessions, pushed elicitation) and legacy SSE',
    `                   ${urls.protectedMcp}`,
    '                     the same demo tools behind OAuth 2.1 (plus reset_demo_data, scope mcp:admin)',
    `                   ${urls.demo}/control/faults`,
    '                     fault switches, e.g. POST {"expireSessions":true}',
    `                   ${urls.demo}/apps/mcp`,
    '                     MCP Apps demo: tools with ui:// views ("Add Demo apps" in Servers)',
    `  Sandbox proxy:   ${urls.sandboxProxy}`,
    '                   MCP Apps sandbox proxy page, a second origin framed by the page only',
    `  OAuth server:    ${urls.authorizationServer}`,
    '                   test authorization server: consent page, dynamic registration, PKCE',
    `  Model server:    ${urls.modelBaseUrl}`,
    '                   scripted model (offline, no real LLM): OpenAI Chat Completions,',
    '                   Responses and Anthropic Messages formats',
    '  Page server:     Vite dev server (hot reload)',
  ];
  for (const fallback of fallbacks) {
    lines.push(
      `  Note: port ${fallback.wanted} was taken, so the ${serviceNames[fallback.service]} uses ${fallback.used}.`,
    );
  }
  lines.push(
    '',
    'Try the suggestions in the chat ("delete notes.txt", "book a table", …), or call any tool',
    'from the Tool runner. Settings in the page switch to OpenAI, Anthropic or any',
    'OpenAI-compatible model with your own key. Press Ctrl-C to stop everything.',
    '',
  );
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error('The playground could not start:', error);
  process.exit(1);
});
