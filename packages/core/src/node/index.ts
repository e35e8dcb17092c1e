/**
 * Node-only parts of Switchboard (`@switchboard/core/node`): they use Node built-ins and are never
 * imported by the root entry (DESIGN.md §1).
 */
export { JsonlHistoryStore, type JsonlHistoryStoreOptions } from './jsonl-history-store.ts';
export { stdioTransport, type StdioTransportOptions } from './stdio-transport.ts';
export { mcpServer, type NodeMcpServerOptions } from './mcp-server.ts';
