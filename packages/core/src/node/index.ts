/**
 * Node-only parts of Switchboard (`@switchboard/core/node`): they use Node built-ins and are never
 * imported by the root entry (docs/architecture.md, "The repository").
 */
export { JsonlHistoryStore, type JsonlHistoryStoreOptions } from './jsonl-history-store.ts';
export {
  stdioTransport,
  type StdioProcessOptions,
  type StdioStderrOptions,
  type StdioTransportOptions,
} from './stdio-transport.ts';
// Not `mcpServer`: that is the root entry's HTTP-only factory, and one name means one thing
// across the entries. This one adds stdio (`command`), which needs Node.
export { nodeMcpServer, type NodeMcpServerOptions } from './mcp-server.ts';
export {
  nodeOAuthProvider,
  type NodeOAuthProvider,
  type NodeOAuthProviderOptions,
} from './node-oauth-provider.ts';
