import type { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { InputRequest } from '../../vocabulary/interrupts.ts';
import type { ElicitationRouter } from '../elicitation-router.ts';
import type { McpConnection } from '../mcp-connection.ts';
import type { McpToolTarget } from '../tool-catalog.ts';
import type { ActiveCall } from './resume-state.ts';

/** Everything one call needs from its `McpServer`. */
export interface McpCallScope {
  connection: McpConnection;
  router: ElicitationRouter;
  /** Calls in flight by call key (see `callMcpTool`), for the `elicitation/create` handler. */
  activeCalls: Map<string, ActiveCall>;
  where: string;
  /** Idle timeout of a call (reset by progress), in ms. */
  timeoutMs: number;
  /** Absolute cap of a call (time a human spends answering excluded), in ms. */
  maxTotalTimeoutMs: number;
  /**
   * A `needs_auth` failure becomes an `authorization` interrupt (agent runs: the user signs in,
   * the call is made again) instead of a thrown error (direct calls).
   */
  authorizationInterrupts: boolean;
  /** Told about every `needs_auth` failure (the server's status becomes `needs-auth`). */
  onNeedsAuth(error: SwitchboardError): void;
  /**
   * Lists the server's tools again and returns `name` as now listed (`undefined`: gone, or the
   * listing failed). For the `-32020` recovery in `callMcpTool`.
   */
  relistTool(name: string): Promise<McpToolTarget | undefined>;
}

/** `request` with secrets this client sent taken out of the server's message. */
export function scrubRequest(scope: McpCallScope, request: InputRequest): InputRequest {
  if (request.message === undefined) return request;
  const message = scope.connection.scrubber.scrub(request.message);
  return message === request.message ? request : { ...request, message };
}
