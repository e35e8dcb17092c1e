import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { parseElicitation } from './call/elicitation.ts';
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
  /** A subscribed resource changed (`notifications/resources/updated`). */
  onResourceUpdated(uri: string): void;
  /** The resource list changed (`notifications/resources/list_changed`). */
  onResourcesChanged(): void;
  /** The prompt list changed (`notifications/prompts/list_changed`). */
  onPromptsChanged(): void;
}

/**
 * Registers on a new `Client` what it answers and hears from the server: `elicitation/create`
 * goes to the tool call it belongs to (found by the router), or is cancelled when it belongs to
 * none; the notifications (list changes, resource updates, elicitation complete) go to the
 * server.
 *
 * `elicitation/create` is answered by the client's `fallbackRequestHandler`, not through
 * `setRequestHandler`: the SDK wraps every handler registered for that method (however it is
 * registered) in a check against the spec's restricted schema subset, which refuses, with
 * -32602, schemas servers do send (a nullable enum as `anyOf` with `{type: "null"}`, …). Our
 * own {@link parseElicitation} lets any object schema through and refuses the rest with
 * -32602 and the reason. Other methods the client has no handler for stay "Method not found".
 */
export function answerServerRequests(client: Client, targets: ServerRequestTargets): void {
  client.fallbackRequestHandler = async (request, context) => {
    if (request.method !== 'elicitation/create') {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    }
    const parsed = parseElicitation(request.params);
    if (!parsed.ok) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid elicitation request: ${parsed.reason}`,
      );
    }
    const callKey = targets.router.callFor(client, context.mcpReq.id);
    const active = callKey === undefined ? undefined : targets.activeCalls.get(callKey);
    // A request outside any tool call (or one that cannot be told apart from another call's)
    // has no human to ask in an agent run.
    if (active === undefined) return { action: 'cancel' };
    return await active.ask(parsed.request);
  };
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    targets.onToolsChanged();
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    targets.onResourceUpdated(notification.params.uri);
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    targets.onResourcesChanged();
  });
  client.setNotificationHandler('notifications/prompts/list_changed', () => {
    targets.onPromptsChanged();
  });
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    const id = (notification.params as { elicitationId?: unknown } | undefined)?.elicitationId;
    if (typeof id === 'string') targets.onElicitationComplete(id);
  });
}
