import {
  SwitchboardError,
  type McpAuthorizeOutcome,
  type McpServerSnapshot,
} from '@switchboard/core';
import { useCallback, useSyncExternalStore } from 'react';
import type { McpServerLike } from './mcp-server-like.ts';

/** What {@link useMcpServerStatus} returns: the server's snapshot plus a `connect` trigger. */
export interface UseMcpServerStatusResult extends McpServerSnapshot {
  /**
   * Connects (single-flight; after a failure it tries again). Never rejects: a failure shows as
   * `status: 'error'` with `error` in the snapshot.
   */
  connect(): Promise<void>;
  /**
   * Signs in (`McpServer.authorize()`): call it from the click handler (a browser popup needs the
   * click's activation). Shown as `status`/`account` in the snapshot once done.
   *
   * @throws SwitchboardError (as a rejection) `needs_auth` when the user closed the popup or
   *   denied; `invalid_input` when the server has no interactive `authProvider`.
   */
  authorize(): Promise<McpAuthorizeOutcome>;
  /** Signs out (`McpServer.signOut()`): forgets the tokens; the next use needs a sign-in. */
  signOut(): Promise<void>;
}

/**
 * An MCP server's connection state — `status` (`idle`, `connecting`, `connected`, `cached`,
 * `needs-auth`, `error`, `closed`), `error`, `protocolEra`, `protocolVersion`, `serverInfo`,
 * `tools`, and for OAuth servers `account` (signed in, issuer, scope; never a token) —
 * re-rendered on every change (`useSyncExternalStore` over the server's store), with `connect()`,
 * `authorize()` and `signOut()`.
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing.
 */
export function useMcpServerStatus(server: McpServerLike): UseMcpServerStatusResult {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpServerStatus needs an McpServer argument.');
  }
  // Called as a method, so it works whether or not the server binds `subscribe` (core's Store does).
  const subscribe = useCallback((listener: () => void) => server.subscribe(listener), [server]);
  const getSnapshot = useCallback(() => server.getSnapshot(), [server]);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  const connect = useCallback(
    () =>
      server.connect().catch(() => {
        // The failure is in the snapshot (status 'error', error).
      }),
    [server],
  );
  const authorize = useCallback(
    () =>
      server.authorize === undefined
        ? Promise.reject(new SwitchboardError('invalid_input', 'This server cannot sign in.'))
        : server.authorize(),
    [server],
  );
  const signOut = useCallback(
    () =>
      server.signOut === undefined
        ? Promise.reject(new SwitchboardError('invalid_input', 'This server cannot sign out.'))
        : server.signOut(),
    [server],
  );
  return { ...snapshot, connect, authorize, signOut };
}
