/**
 * The MCP client that the official conformance harness (`@modelcontextprotocol/conformance`)
 * spawns for each client scenario. It drives our MCP layer — `mcpServer()` from the package
 * root, the same code an agent uses — never the SDK directly. `run-conformance.mjs` bundles it
 * with esbuild and runs it on the project Node (`--tsx` there, or by hand:
 * `node_modules/.bin/tsx packages/core/conformance/client.ts <url>`).
 *
 * Contract (harness `client` command): the server URL is the last argument, the scenario name is
 * in `MCP_CONFORMANCE_SCENARIO`, scenario data (JSON) in `MCP_CONFORMANCE_CONTEXT`, and the
 * revision under test in `MCP_CONFORMANCE_PROTOCOL_VERSION`. We do not pin the revision: our
 * layer negotiates the era itself (`server/discover`, else `initialize`), which is what the
 * harness grades. Exit 0 when the scenario's steps ran; the harness grades the wire.
 *
 * Elicitation is answered like a user who accepts the form unchanged: `approve` with empty
 * content. Filling in the schema's defaults is the layer's job (it declares
 * `elicitation.form.applyDefaults`), which is what `elicitation-sep1034-client-defaults` checks.
 *
 * Calls go through `McpServer.callTool(name, args, { onInput })`, except where the server answers
 * with an MRTR `input_required` result (2026-07-28): `callTool` cannot continue those, so
 * `sep-2322-client-request-state` uses the path an `Agent` takes instead: the listed tool's
 * `execute`, which returns an interrupt, and `execute` again with `context.resume`.
 *
 * OAuth: `mcpServer({ authProvider })` gets the provider `scenario-auth-providers.ts` picks for
 * the scenario — the headless authorization-code provider, or the MCP SDK's own provider for the
 * extension grants (client credentials, cross-app access, DPoP, workload identity) — so the SDK
 * runs each grant through our transport wiring.
 */
import {
  isSwitchboardError,
  mcpServer,
  type McpServer,
  type McpToolDescriptor,
  type ToolContext,
} from '../src/index.ts';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { HeadlessOAuthProvider, authorizeHeadlessly } from './headless-oauth-provider.ts';
import { authProviderFor } from './scenario-auth-providers.ts';

type InputHandler = ToolContext['requestInput'];
type ToolInterrupt = ReturnType<ToolContext['interrupt']>;

/** Most rounds one MRTR call may take before the client gives up. */
const MAX_INPUT_ROUNDS = 5;
/**
 * Most OAuth authorizations (the first one plus step-ups) one run may make: a server that keeps
 * answering `403 insufficient_scope` must not loop (`auth/scope-retry-limit` allows 3).
 */
const MAX_AUTHORIZATIONS = 3;

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);

/** Accepts every form unchanged (defaults are applied by the layer) and every URL request. */
const acceptUnchanged: InputHandler = async (request) => {
  log(`elicitation (${request.mode}): ${request.message ?? ''}`);
  return request.mode === 'form'
    ? { callId: '', action: 'approve', content: {} }
    : { callId: '', action: 'approve' };
};

/** What the client does per scenario; anything else gets {@link callEveryTool}. */
const scenarios: Record<string, (server: McpServer) => Promise<void>> = {
  // The handshake only: connect and list.
  initialize: async (server) => {
    await server.listTools();
  },
  tools_call: async (server) => {
    await server.listTools();
    await call(server, 'add_numbers', { a: 5, b: 7 });
  },
  'elicitation-sep1034-client-defaults': async (server) => {
    await server.listTools();
    await call(server, 'test_client_elicitation_defaults', {});
  },
  'sse-retry': async (server) => {
    await server.listTools();
    await call(server, 'test_reconnection', {});
  },
  'json-schema-2020-12-preservation': async (server) => {
    const tools = await server.listTools();
    const focal = findTool(tools, 'json_schema_2020_12_tool');
    await call(server, 'json_schema_echo', { schema: focal.inputSchema });
  },
  // Listing is the whole test: the network `$ref` must not be fetched.
  'json-schema-ref-no-deref': async (server) => {
    await server.listTools();
  },
  'http-custom-headers': async (server) => {
    await server.listTools();
    const toolCalls = (context.toolCalls ?? []) as {
      name: string;
      arguments: Record<string, unknown>;
    }[];
    for (const toolCall of toolCalls) await call(server, toolCall.name, toolCall.arguments);
  },
  'sep-2322-client-request-state': async (server) => {
    const tools = await server.listTools();
    for (const name of [
      'test_mrtr_echo_state',
      'test_mrtr_no_state',
      'test_mrtr_unrelated',
      'test_mrtr_no_result_type',
    ]) {
      await callAsAgent(findTool(tools, name), {});
    }
  },
};

/**
 * Lists the tools and calls each one the layer offers, with arguments made from its schema.
 * Serves `request-metadata`, `http-standard-headers`, `http-invalid-tool-headers` (tools with an
 * invalid `x-mcp-header` must not be offered, so must not be called), the auth scenarios (the
 * provider from `scenario-auth-providers.ts` authorizes on the first 401) and any scenario added
 * later.
 */
async function callEveryTool(server: McpServer): Promise<void> {
  const tools = await server.listTools();
  for (const tool of tools) await call(server, tool.originalName, argumentsFor(tool));
}

async function call(server: McpServer, name: string, args: Record<string, unknown>): Promise<void> {
  const output = await server.callTool(name, args, {
    onInput: acceptUnchanged,
    onProgress: (progress) => log(`progress ${progress.progress}/${progress.total ?? '?'}`),
  });
  log(`${name} → ${output.isError === true ? 'error: ' : ''}${output.text}`);
  if (output.error?.code === 'input_required') {
    throw new Error(`${name}: callTool could not answer the server's input request.`);
  }
}

/**
 * Calls a tool the way an `Agent` does: `execute` with a tool context; an interrupt (MRTR
 * `input_required`, or a URL the server requires) is answered and the tool run again with
 * `context.resume`, as after a paused run is resumed.
 */
async function callAsAgent(tool: McpToolDescriptor, args: Record<string, unknown>): Promise<void> {
  let resume: ToolContext['resume'];
  for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
    const context: ToolContext = {
      // Never aborted: the layer's own call timeouts apply, as in `callTool`.
      signal: new AbortController().signal,
      callId: `conformance-${tool.originalName}`,
      threadId: 'conformance',
      runId: `conformance-${round}`,
      runContext: undefined,
      reportProgress: () => undefined,
      requestInput: acceptUnchanged,
      interrupt: (request, resumeState) => ({
        kind: 'switchboard.interrupt',
        request,
        resumeState,
      }),
      ...(resume === undefined ? {} : { resume }),
    };
    const result = await tool.execute(args, context);
    if (!isInterrupt(result)) {
      const output = result as { text?: string; isError?: boolean };
      log(`${tool.originalName} → ${output.isError === true ? 'error: ' : ''}${output.text ?? ''}`);
      return;
    }
    log(`${tool.originalName}: interrupted (${result.request.mode}), resuming`);
    resume = { resolution: await acceptUnchanged(result.request), resumeState: result.resumeState };
  }
  throw new Error(`${tool.originalName}: still asking for input after ${MAX_INPUT_ROUNDS} rounds.`);
}

function isInterrupt(value: unknown): value is ToolInterrupt {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'switchboard.interrupt'
  );
}

function findTool(tools: readonly McpToolDescriptor[], name: string): McpToolDescriptor {
  const tool = tools.find((candidate) => candidate.originalName === name);
  if (tool === undefined) throw new Error(`The server offered no tool named ${name}.`);
  return tool;
}

/** Arguments for a tool's required properties: its default, first enum value, or a sample. */
function argumentsFor(tool: McpToolDescriptor): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = (tool.inputSchema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) args[name] = sampleValue(properties[name] ?? {});
  return args;
}

function sampleValue(schema: Record<string, unknown>): unknown {
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return 'sample';
  }
}

function parseContext(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** An error with its chain of causes (and their `code`s), on one line. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const code = (current as { code?: unknown }).code;
    parts.push(`${code === undefined ? '' : `[${String(code)}] `}${current.message}`);
    current = current.cause;
  }
  return parts.join(' <- ');
}

/** Diagnostics go to stderr, which the harness saves as `stderr.txt`. */
function log(message: string): void {
  process.stderr.write(`[conformance-client] ${message}\n`);
}

async function main(): Promise<number> {
  if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl)) {
    log('usage: client.ts <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)');
    return 2;
  }
  log(`scenario ${scenario || '(none)'} against ${serverUrl}`);
  // Every scenario gets a provider; only servers that answer 401 make it do anything.
  let authProvider: OAuthClientProvider;
  try {
    authProvider = authProviderFor(scenario, context);
  } catch (error) {
    log(`failed: ${describeError(error)}`);
    return 2;
  }
  const server = mcpServer({
    url: serverUrl,
    transport: 'streamable-http',
    name: 'conformance',
    authProvider,
  });
  const run = scenarios[scenario] ?? callEveryTool;
  try {
    // On `needs_auth` the "user" authorizes, and the scenario runs again from the start
    // (listings already made are kept by the layer).
    for (let authorizations = 0; ; authorizations++) {
      try {
        await run(server);
        return 0;
      } catch (error) {
        const url = isSwitchboardError(error, 'needs_auth')
          ? error.details?.authorizationUrl
          : undefined;
        // Only the authorization-code provider has a "user"; the other grants never redirect.
        if (
          typeof url !== 'string' ||
          !(authProvider instanceof HeadlessOAuthProvider) ||
          authorizations >= MAX_AUTHORIZATIONS
        ) {
          throw error;
        }
        log(`authorization ${authorizations + 1}: visiting the authorization endpoint`);
        await server.finishAuthorization(await authorizeHeadlessly(authProvider, url));
      }
    }
  } catch (error) {
    log(`failed: ${describeError(error)}`);
    return 1;
  } finally {
    await server.close();
    const cpu = process.cpuUsage();
    log(
      `done after ${Math.round(performance.now())} ms (${Math.round((cpu.user + cpu.system) / 1000)} ms of CPU)`,
    );
  }
}

// Exit explicitly: the harness waits for the process, and a lingering socket must not stall it.
process.exit(await main());
