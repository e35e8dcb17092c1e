import { randomBytes } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import { createDemoTools, createDynamicTool } from './demo-tools.ts';
import type { DemoTool } from './demo-tools.ts';

/**
 * The payload sealed into an MRTR `requestState` (HMAC-signed by
 * `createRequestStateCodec`, readable by the client as base64url JSON, not editable).
 */
export type DemoRequestState =
  | { tool: 'book_table'; arguments: { restaurant: string } }
  | { tool: 'connect_account'; arguments: { service: string }; elicitationId: string };

/** Largest number of remembered URL elicitations (oldest dropped first). */
const MAX_ELICITATIONS = 1000;

/** Tracks URL-mode elicitations so `GET /demo/authorize` can mark them as visited. */
export class AuthorizationRegistry {
  private readonly entries = new Map<string, { visited: boolean; onVisit?: () => void }>();

  /** Remembers an elicitation; `onVisit` runs once when its page is opened. */
  register(elicitationId: string, onVisit?: () => void): void {
    if (this.entries.size >= MAX_ELICITATIONS) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(
      elicitationId,
      onVisit === undefined ? { visited: false } : { visited: false, onVisit },
    );
  }

  /** Marks an elicitation's page as visited. False for an unknown id. */
  visit(elicitationId: string): boolean {
    const entry = this.entries.get(elicitationId);
    if (entry === undefined) return false;
    if (!entry.visited) {
      entry.visited = true;
      entry.onVisit?.();
    }
    return true;
  }

  /** True once the elicitation's page was opened. */
  wasVisited(elicitationId: string): boolean {
    return this.entries.get(elicitationId)?.visited === true;
  }
}

/** State shared by every endpoint of one demo server. */
export interface DemoServerState {
  /** Base URL (`http://127.0.0.1:PORT`), set once the server listens. */
  url: string;
  /** Tools per `tools/list` page. */
  readonly pageSize: number;
  /** Whether `dynamic_tool` is currently listed. */
  dynamicToolEnabled: boolean;
  /** Seals and verifies MRTR `requestState` (one random key per server; TTL one hour). */
  readonly requestStateCodec: RequestStateCodec<DemoRequestState>;
  /** URL elicitations and whether their page was visited. */
  readonly authorizations: AuthorizationRegistry;
  /** The tools listed right now, in order. */
  listedTools(): DemoTool[];
  /** A tool by name, if listed right now. */
  findTool(name: string): DemoTool | undefined;
}

/** Creates the shared state: catalog of 8 named + `toolCount` filler tools, codec, registry. */
export function createDemoServerState(toolCount: number, pageSize: number): DemoServerState {
  const tools = createDemoTools(toolCount);
  const dynamicTool = createDynamicTool();
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  return {
    url: '',
    pageSize,
    dynamicToolEnabled: false,
    requestStateCodec: createRequestStateCodec<DemoRequestState>({
      key: randomBytes(32),
      ttlSeconds: 3600,
    }),
    authorizations: new AuthorizationRegistry(),
    listedTools() {
      return this.dynamicToolEnabled ? [...tools, dynamicTool] : tools;
    },
    findTool(name) {
      if (name === dynamicTool.definition.name) {
        return this.dynamicToolEnabled ? dynamicTool : undefined;
      }
      return byName.get(name);
    },
  };
}
