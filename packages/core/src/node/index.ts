/**
 * Node-only parts of Switchboard (`@switchboard/core/node`): they use Node built-ins and are never
 * imported by the root entry (DESIGN.md §1).
 */
export { JsonlHistoryStore, type JsonlHistoryStoreOptions } from './jsonl-history-store.ts';
export { stdioTransport, type StdioTransportOptions } from './stdio-transport.ts';
export { mcpServer, type NodeMcpServerOptions } from './mcp-server.ts';
export {
  nodeOAuthProvider,
  type NodeOAuthProvider,
  type NodeOAuthProviderOptions,
} from './node-oauth-provider.ts';
export {
  FileOAuthCredentialStore,
  type FileOAuthCredentialStoreOptions,
} from './file-credential-store.ts';
