/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The MCP endpoint of the everything server, set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_MCP_URL?: string;
  /** The demo MCP server's base URL (no path), set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_DEMO_URL?: string;
  /** The demo server's OAuth-protected MCP endpoint, set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_DEMO_PROTECTED_URL?: string;
  /** The issuer URL of the demo's test authorization server, set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_AUTHORIZATION_SERVER_URL?: string;
  /** The scripted model's OpenAI-compatible base URL, set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_MODEL_BASE_URL?: string;
  /** The MCP Apps sandbox proxy page (a second loopback port), set by servers/playground-servers.ts. */
  readonly VITE_SWITCHBOARD_SANDBOX_PROXY_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
