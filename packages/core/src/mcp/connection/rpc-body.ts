import { CALL_ID_META_KEY } from '../elicitation-router.ts';
import type { JsonRpcId } from './scan-server-requests.ts';

// What the session fetch reads from the JSON-RPC message in a POST body, reading as little of
// it as it can: most requests are never parsed again after the SDK wrote them.

/** What {@link rpcRequestOf} reads from a POST body. */
export interface RpcRequest {
  method?: string;
  id?: JsonRpcId;
  uri?: string;
  callKey?: string;
}

/**
 * False when a POST body cannot be an `initialize` or `server/discover` request: a substring
 * test, so that only bodies that may be one are parsed.
 */
export function mayBeHandshake(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  // The SDK writes a request's method first: read it there instead of scanning the whole body.
  if (body.startsWith(METHOD_FIRST)) {
    return (
      body.startsWith('initialize"', METHOD_FIRST.length) ||
      body.startsWith('server/discover"', METHOD_FIRST.length)
    );
  }
  return body.includes('initialize') || body.includes('server/discover');
}

/** How a JSON-RPC request the SDK serialises begins: its method comes first. */
const METHOD_FIRST = '{"method":"';
/** How the SDK serialises a request's id: its last member. */
const ID_LAST = ',"id":';

/**
 * The JSON-RPC id of the request in a POST body; undefined for a notification, a response, a
 * batch, or a body that is no JSON-RPC message. A body the SDK wrote (`{"method":…,"id":N}`)
 * gives a numeric id up without being parsed: a nested `"id"` cannot end the body, since the
 * body's last `}` closes its outermost object. Any other body is parsed.
 */
export function requestIdOf(body: unknown): JsonRpcId | undefined {
  if (typeof body !== 'string') return undefined;
  if (body.startsWith(METHOD_FIRST)) {
    const at = body.lastIndexOf(ID_LAST);
    if (at < 0 && !body.includes('"id"')) return undefined;
    if (at > 0 && body.endsWith('}')) {
      const digits = body.slice(at + ID_LAST.length, -1);
      const id = Number(digits);
      if (digits.length > 0 && Number.isSafeInteger(id) && String(id) === digits) return id;
    }
  }
  const request = rpcRequestOf(body);
  return request?.method === undefined ? undefined : request.id;
}

/**
 * Method, id and `params.uri` of the JSON-RPC message in a POST body the SDK wrote (a JSON
 * string).
 */
export function rpcRequestOf(body: unknown): RpcRequest | undefined {
  if (typeof body !== 'string') return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  const uri = (params as { uri?: unknown } | null | undefined)?.uri;
  const meta = (params as { _meta?: Record<string, unknown> } | null | undefined)?._meta;
  const callKey = meta?.[CALL_ID_META_KEY];
  return {
    ...(typeof callKey === 'string' ? { callKey } : {}),
    ...(typeof method === 'string' ? { method } : {}),
    ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}),
    ...(typeof uri === 'string' ? { uri } : {}),
  };
}
