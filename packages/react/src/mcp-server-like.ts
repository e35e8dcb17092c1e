import type { McpServer } from '@switchboard/core';

/**
 * The part of an {@link McpServer} the MCP hooks use: its store (`subscribe` / `getSnapshot`),
 * `connect` and `listTools`, and for OAuth servers `authorize` / `signOut`. Any object with these
 * members works (handy in tests).
 */
export type McpServerLike = Pick<McpServer, 'subscribe' | 'getSnapshot' | 'connect' | 'listTools'> &
  Partial<Pick<McpServer, 'authorize' | 'signOut'>> & {
    readonly name?: string;
  };
