import type { McpTransportKind } from '@switchboard/core';
import type { PlaygroundConfig } from './playground-config.ts';

/** One HTTP header sent with every request to a server. */
export interface HeaderEntry {
  name: string;
  /** Kept in localStorage with the rest of the config (the UI says so) and shown masked. */
  value: string;
}

/**
 * What the playground knows about a server's protocol before connecting:
 * - `detect`: the client probes with `server/discover` (2026-07-28) and falls back to
 *   `initialize` (a 2025-era server answers the probe with HTTP 400, which the browser logs);
 * - `2025`: the server is known to be 2025-era, so the probe is answered in the page (never
 *   sent) and the client goes straight to `initialize`.
 */
export type ProtocolHint = 'detect' | '2025';

/**
 * The servers `npm start` runs; their URLs follow the running playground. The first three are
 * the defaults of a fresh browser; `demo-oauth` (the demo server's OAuth-protected endpoint) is a
 * preset added on demand (see {@link oauthDemoServer}).
 */
export type BuiltInServer = 'demo' | 'demo-2025' | 'everything' | 'demo-oauth' | 'demo-apps';

/**
 * How the playground authenticates to a server, besides any headers:
 * - `oauth`: OAuth 2.1 sign-in (MCP authorization) with `browserOAuthProvider`: the server card
 *   and the chat offer "Connect", and tokens are kept in this browser's IndexedDB.
 */
export type ServerAuth = 'oauth';

/** One MCP server of the Servers panel, as stored in localStorage. */
export interface ServerConfig {
  /** Stable id (the built-in name, or a random one). */
  id: string;
  /** Unique; shown in the UI and in tool calls and interrupts (`McpServer.name`). */
  name: string;
  url: string;
  transport: McpTransportKind;
  protocol: ProtocolHint;
  headers: HeaderEntry[];
  /** Prepended to tool names the model sees; empty for none. */
  toolPrefix: string;
  /** Server tool names kept out of the model's list until `tool_search` finds them, or `*`. */
  deferredTools: '*' | string[];
  /** Server tool names whose every call waits for approval. */
  approvalTools: string[];
  /** OAuth sign-in (see {@link ServerAuth}); absent for none. */
  auth?: ServerAuth;
  builtIn?: BuiltInServer;
}

/** The localStorage key the server list is kept under. */
export const serversStorageKey = 'switchboard.playground.servers';

/** How many filler tools (`tool_000` …) the demo server lists (its default `toolCount`). */
const demoFillerCount = 160;

/** The demo server's filler tools: deferred by default, found with `tool_search`. */
export const demoFillerTools: readonly string[] = Array.from(
  { length: demoFillerCount },
  (_, index) => `tool_${String(index).padStart(3, '0')}`,
);

/**
 * The servers a fresh browser starts with: the demo server's 2026-07-28 endpoint (prefix
 * `demo_`, filler tools deferred), its 2025-era endpoint (prefix `legacy_`, every tool deferred
 * so that the two catalogs do not both reach the model) and the everything server (no prefix;
 * `get-env` needs approval, since it returns the server process's environment).
 */
export function defaultServers(config: PlaygroundConfig): ServerConfig[] {
  return [
    {
      id: 'demo',
      builtIn: 'demo',
      name: 'demo',
      url: builtInUrl('demo', config),
      transport: 'streamable-http',
      protocol: 'detect',
      headers: [],
      toolPrefix: 'demo_',
      deferredTools: [...demoFillerTools],
      approvalTools: [],
    },
    {
      id: 'demo-2025',
      builtIn: 'demo-2025',
      name: 'demo-2025',
      url: builtInUrl('demo-2025', config),
      transport: 'streamable-http',
      protocol: '2025',
      headers: [],
      toolPrefix: 'legacy_',
      deferredTools: '*',
      approvalTools: [],
    },
    {
      id: 'everything',
      builtIn: 'everything',
      name: 'everything',
      url: builtInUrl('everything', config),
      transport: 'streamable-http',
      protocol: '2025',
      headers: [],
      toolPrefix: '',
      deferredTools: [],
      approvalTools: ['get-env'],
    },
  ];
}

/**
 * The "Demo (OAuth)" preset: the demo server's OAuth-protected endpoint (`/protected/mcp`: the
 * demo tools plus `reset_demo_data`, which needs the `mcp:admin` scope), prefix `secure_`,
 * filler tools deferred, with sign-in through the local test authorization server. Not in the
 * defaults (a fresh browser
 * would otherwise start with a server asking to sign in); the Servers panel offers to add it.
 */
export function oauthDemoServer(config: PlaygroundConfig): ServerConfig {
  return {
    id: 'demo-oauth',
    builtIn: 'demo-oauth',
    name: 'demo-oauth',
    url: builtInUrl('demo-oauth', config),
    transport: 'streamable-http',
    protocol: 'detect',
    headers: [],
    toolPrefix: 'secure_',
    deferredTools: [...demoFillerTools],
    approvalTools: [],
    auth: 'oauth',
  };
}

/**
 * The "Demo apps" preset: the demo server's MCP Apps endpoint (`/apps/mcp`: the chart and the
 * order form with their `ui://` views and app-only tools, and the escape-test probe), prefix
 * `apps_`. `place_order` is destructive, so the default policy holds the form's order for
 * approval.
 */
export function appsDemoServer(config: PlaygroundConfig): ServerConfig {
  return {
    id: 'demo-apps',
    builtIn: 'demo-apps',
    name: 'demo-apps',
    url: builtInUrl('demo-apps', config),
    transport: 'streamable-http',
    protocol: 'detect',
    headers: [],
    toolPrefix: 'apps_',
    deferredTools: [],
    approvalTools: [],
  };
}

/** Where a built-in server runs in this playground. */
export function builtInUrl(builtIn: BuiltInServer, config: PlaygroundConfig): string {
  switch (builtIn) {
    case 'demo':
      return `${config.demoUrl}/modern/mcp`;
    case 'demo-2025':
      return `${config.demoUrl}/legacy/mcp`;
    case 'everything':
      return config.everythingUrl;
    case 'demo-oauth':
      return config.protectedDemoUrl;
    case 'demo-apps':
      return `${config.demoUrl}/apps/mcp`;
  }
}

/**
 * Reads the server list from localStorage; the defaults when nothing (valid) is stored. Built-in
 * servers get the URL of the running playground (ports may change between starts).
 */
export function loadServers(config: PlaygroundConfig): ServerConfig[] {
  let raw: string | null;
  try {
    raw = globalThis.localStorage?.getItem(serversStorageKey) ?? null;
  } catch {
    return defaultServers(config);
  }
  if (raw === null) return defaultServers(config);
  let stored: unknown;
  try {
    stored = JSON.parse(raw);
  } catch {
    return defaultServers(config);
  }
  if (!Array.isArray(stored)) return defaultServers(config);
  const servers: ServerConfig[] = [];
  for (const entry of stored) {
    const server = parseServer(entry, config);
    if (server !== undefined && !servers.some((other) => other.id === server.id)) {
      servers.push(server);
    }
  }
  return servers;
}

/**
 * Writes the server list (header values included) to localStorage.
 *
 * @throws Error when the browser refuses to store it.
 */
export function saveServers(servers: readonly ServerConfig[]): void {
  globalThis.localStorage.setItem(serversStorageKey, JSON.stringify(servers));
}

/** The fields of the "Add a server" form. */
export interface ServerDraft {
  name: string;
  url: string;
  transport: McpTransportKind;
  protocol: ProtocolHint;
  toolPrefix: string;
  headers: HeaderEntry[];
  /** "Sign in with OAuth". */
  oauth: boolean;
}

/** Header names as HTTP allows them (RFC 9110 token). */
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const toolPrefixPattern = /^[A-Za-z0-9_-]*$/;

/**
 * Why a draft cannot be added (a sentence for the form), or undefined when it can.
 *
 * @param existing The servers already in the list (names must be unique).
 */
export function validateServerDraft(
  draft: ServerDraft,
  existing: readonly ServerConfig[],
): string | undefined {
  const name = draft.name.trim();
  if (name === '') return 'Give the server a name.';
  if (existing.some((server) => server.name === name)) {
    return `There is already a server named "${name}".`;
  }
  let url: URL;
  try {
    url = new URL(draft.url.trim());
  } catch {
    return 'The URL is not valid, e.g. http://127.0.0.1:3001/mcp.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'MCP server URLs must start with http:// or https://.';
  }
  if (!toolPrefixPattern.test(draft.toolPrefix.trim())) {
    return 'A tool prefix may use letters, digits, "_" and "-" only.';
  }
  for (const header of draft.headers) {
    const headerName = header.name.trim();
    if (headerName === '' && header.value === '') continue;
    if (!headerNamePattern.test(headerName)) {
      return `"${headerName}" is not a valid header name.`;
    }
  }
  return undefined;
}

/** A new server config from a valid draft. */
export function serverFromDraft(draft: ServerDraft): ServerConfig {
  return {
    id: crypto.randomUUID(),
    name: draft.name.trim(),
    url: draft.url.trim(),
    transport: draft.transport,
    protocol: draft.protocol,
    toolPrefix: draft.toolPrefix.trim(),
    headers: draft.headers
      .map((header) => ({ name: header.name.trim(), value: header.value }))
      .filter((header) => header.name !== ''),
    deferredTools: [],
    approvalTools: [],
    ...(draft.oauth ? { auth: 'oauth' as const } : {}),
  };
}

/** The built-in servers missing from `servers` (removed by the user), as fresh defaults. */
export function missingBuiltIns(
  servers: readonly ServerConfig[],
  config: PlaygroundConfig,
): ServerConfig[] {
  return defaultServers(config).filter(
    (candidate) =>
      !servers.some(
        (server) => server.builtIn === candidate.builtIn || server.name === candidate.name,
      ),
  );
}

const transports: readonly McpTransportKind[] = ['auto', 'streamable-http', 'sse'];
const builtIns: readonly BuiltInServer[] = [
  'demo',
  'demo-2025',
  'everything',
  'demo-oauth',
  'demo-apps',
];

function parseServer(value: unknown, config: PlaygroundConfig): ServerConfig | undefined {
  if (!isRecord(value)) return undefined;
  const text = (key: string): string | undefined =>
    typeof value[key] === 'string' ? value[key] : undefined;
  const id = text('id');
  const name = text('name');
  const builtIn = builtIns.find((candidate) => candidate === value['builtIn']);
  const url = builtIn === undefined ? text('url') : builtInUrl(builtIn, config);
  if (id === undefined || name === undefined || url === undefined) return undefined;
  const names = (key: string): string[] =>
    Array.isArray(value[key])
      ? value[key].filter((item): item is string => typeof item === 'string')
      : [];
  const headers = Array.isArray(value['headers'])
    ? value['headers'].flatMap((header): HeaderEntry[] =>
        isRecord(header) &&
        typeof header['name'] === 'string' &&
        typeof header['value'] === 'string'
          ? [{ name: header['name'], value: header['value'] }]
          : [],
      )
    : [];
  return {
    id,
    name,
    url,
    transport: transports.find((candidate) => candidate === value['transport']) ?? 'auto',
    protocol: value['protocol'] === '2025' ? '2025' : 'detect',
    headers,
    toolPrefix: text('toolPrefix') ?? '',
    deferredTools: value['deferredTools'] === '*' ? '*' : names('deferredTools'),
    approvalTools: names('approvalTools'),
    ...(value['auth'] === 'oauth' ? { auth: 'oauth' as const } : {}),
    ...(builtIn === undefined ? {} : { builtIn }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
