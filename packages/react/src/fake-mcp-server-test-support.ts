import {
  SwitchboardError,
  type McpServerSnapshot,
  type McpToolDescriptor,
} from '@switchboard/core';
import type { McpServerLike } from './mcp-server-like.ts';

/**
 * An in-memory stand-in for `McpServer` in this package's tests: `listTools` lists the current
 * tools (once, cached like the core), `relist` mimics the core re-listing after
 * `notifications/tools/list_changed` (new array in the snapshot).
 */
export class FakeMcpServer implements McpServerLike {
  readonly name = 'fake';
  listCalls = 0;
  connectCalls = 0;
  failConnect = false;
  #tools: McpToolDescriptor[];
  #listed: Promise<McpToolDescriptor[]> | undefined;
  #snapshot: McpServerSnapshot = { status: 'idle', completedElicitations: [] };
  readonly #listeners = new Set<() => void>();

  constructor(toolNames: string[]) {
    this.#tools = toolNames.map((name) => descriptor(name));
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  getSnapshot(): McpServerSnapshot {
    return this.#snapshot;
  }

  async connect(): Promise<void> {
    this.connectCalls += 1;
    this.#set({ ...this.#snapshot, status: 'connecting' });
    await Promise.resolve();
    if (this.failConnect) {
      const error = new SwitchboardError('connection_refused', 'The fake server refused.');
      this.#set({ ...this.#snapshot, status: 'error', error });
      throw error;
    }
    this.#set({
      ...this.#snapshot,
      status: 'connected',
      serverInfo: { name: 'fake', version: '1.0.0' },
    });
  }

  listTools(): Promise<McpToolDescriptor[]> {
    this.#listed ??= (async () => {
      this.listCalls += 1;
      await Promise.resolve();
      const tools = this.#tools;
      this.#set({ ...this.#snapshot, tools });
      return tools;
    })();
    return this.#listed;
  }

  /** The server's tools changed and the core listed them again. */
  relist(toolNames: string[]): void {
    this.#tools = toolNames.map((name) => descriptor(name));
    this.#listed = Promise.resolve(this.#tools);
    this.#set({ ...this.#snapshot, tools: this.#tools });
  }

  #set(snapshot: McpServerSnapshot): void {
    this.#snapshot = snapshot;
    for (const listener of this.#listeners) listener();
  }
}

function descriptor(name: string): McpToolDescriptor {
  return {
    name,
    originalName: name,
    server: 'fake',
    description: `The ${name} tool`,
    inputSchema: { type: 'object' },
    execute: async () => '',
  };
}
