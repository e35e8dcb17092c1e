import type { WebLockManager } from './dom-globals.ts';

/**
 * The origin's lock manager when this code runs in a page or worker that has one, else
 * `undefined` (Node, or an old browser). What shares work between the tabs of an origin (the
 * MCP streams' leader, run owners' presence) asks for it here, so Node never meets the DOM.
 */
export function tabLockManager(): WebLockManager | undefined {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  if (scope.document === undefined && scope.WorkerGlobalScope === undefined) return undefined;
  const locks = (globalThis.navigator as Navigator | undefined)?.locks as LockManager | undefined;
  return typeof locks?.request === 'function' ? locks : undefined;
}
