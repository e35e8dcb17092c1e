/**
 * Browser page of benchmark 3: lists the demo server's tools through an `IndexedDbSchemaCache`.
 * The Node side reloads the page between a cold and a warm listing and counts the requests the
 * demo server received.
 */
import { IndexedDbSchemaCache, mcpServer } from '@switchboard/core';

/** What one listing reports to the Node side. */
export interface PageListing {
  tools: number;
  /** `listTools()` duration, in ms. */
  ms: number;
  /** The server's status after listing: `cached` means no connection was made. */
  status: string;
}

declare global {
  interface Window {
    benchReady?: boolean;
    benchListTools?: (options: { url: string; databaseName: string }) => Promise<PageListing>;
  }
}

window.benchListTools = async ({ url, databaseName }) => {
  const cache = new IndexedDbSchemaCache({ databaseName });
  const server = mcpServer({ url, name: 'demo', schemaCache: cache });
  const start = performance.now();
  const tools = await server.listTools();
  const ms = performance.now() - start;
  const status = server.getSnapshot().status;
  await server.close();
  cache.close();
  return { tools: tools.length, ms, status };
};

window.benchReady = true;
