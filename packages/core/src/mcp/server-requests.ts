import type { Client } from '@modelcontextprotocol/client';
import { toInputRequest } from './call/elicitation.ts';
import type { ActiveCall } from './call/resume-state.ts';
import type { ElicitationRouter } from './elicitation-router.ts';

/** What {@link answerServerRequests} routes to. */
export interface ServerRequestTargets {
  router: ElicitationRouter;
  /** Calls in flight by call key: who gets a pushed `elicitation/create`. */
  activeCalls: ReadonlyMap<string, ActiveCall>;
  /** The server's tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged(): void;
  /** The server reported a URL elicitation complete (`notifications/elicitation/complete`). */
  onElicitationComplete(elicitationId: string): void;
}

/**
 * Registers on a new `Client` what it answers and hears from the server: `elicitation/create`
 * goes to the tool call it belongs to (found by the router), or is cancelled when it belongs to
 * none; the two notifications go to the server.
 */
export function answerServerRequests(client: Client, targets: ServerRequestTargets): void {
  client.setRequestHandler('elicitation/create', async (request, context) => {
    const callKey = targets.router.callFor(client, context.mcpReq.id);
    const active = callKey === undefined ? undefined : targets.activeCalls.get(callKey);
    // A request outside any tool call (or one that cannot be told apart from another call's)
    // has no human to ask in an agent run.
    if (active === undefined) return { action: 'cancel' };
    return (await active.ask(toInputRequest(request.params as Record<string, unknown>))) as never;
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    targets.onToolsChanged();
  });
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    const id = (notification.params as { elicitationId?: unknown } | undefined)?.elicitationId;
    if (typeof id === 'string') targets.onElicitationComplete(id);
  });
}
