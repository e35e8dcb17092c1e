import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import { mcpServer } from '@switchboard/core';

// The client capabilities a client puts on the wire. In 2026-07-28 every request carries them in
// its `_meta`, and the server reads them on each one: a like-for-like baseline declares the same.

/** A `fetch` for either client: Switchboard's option takes `Request` inputs too. */
export type WatchedFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** A `fetch` that notes the capabilities the first `tools/list` request declares. */
export function capabilityRecorder(): { fetch: WatchedFetch; declared: () => unknown } {
  let declared: unknown;
  const fetch: WatchedFetch = async (input, init) => {
    if (declared === undefined && typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as {
        method?: string;
        params?: { _meta?: Record<string, unknown> };
      };
      if (message.method === 'tools/list') {
        declared = message.params?._meta?.[CLIENT_CAPABILITIES_META_KEY] ?? 'none sent';
      }
    }
    return await globalThis.fetch(input, init);
  };
  return { fetch, declared: () => declared };
}

/**
 * The capabilities a default `mcpServer({ url })` declares, read off the wire of one listing by
 * a short-lived client (the measured clients carry no watching `fetch`).
 */
export async function switchboardWireCapabilities(url: string): Promise<ClientCapabilities> {
  const recorder = capabilityRecorder();
  const server = mcpServer({ url, name: 'capabilities-probe', fetch: recorder.fetch });
  try {
    await server.listTools();
  } finally {
    await server.close();
  }
  const declared = recorder.declared();
  if (typeof declared !== 'object' || declared === null) {
    throw new Error(`Switchboard's tools/list declared no capabilities (${String(declared)}).`);
  }
  return declared as ClientCapabilities;
}
