import type { InputRequest, Resolution } from '../../vocabulary/interrupts.ts';
import type { ElicitResultLike } from './resume-state.ts';

/** An `elicitation/create` params object as an {@link InputRequest}. */
export function toInputRequest(params: Record<string, unknown>): InputRequest {
  const mode = params.mode === 'url' ? 'url' : 'form';
  const request: InputRequest = { mode };
  if (typeof params.message === 'string') request.message = params.message;
  if (
    mode === 'form' &&
    typeof params.requestedSchema === 'object' &&
    params.requestedSchema !== null
  ) {
    request.requestedSchema = params.requestedSchema as Record<string, unknown>;
  }
  if (mode === 'url' && typeof params.url === 'string') request.url = params.url;
  if (typeof params.elicitationId === 'string') request.elicitationId = params.elicitationId;
  return request;
}

/**
 * The user's real answer in MCP terms: approve → accept, reject → decline, cancel → cancel.
 * Accepted form content gets the schema's `default` for every field the user left out, as the
 * client declares `elicitation.form.applyDefaults` (spec 2025-11-25, SEP-1034).
 */
export function toElicitResult(
  resolution: Resolution,
  requestedSchema?: Record<string, unknown>,
): ElicitResultLike {
  if (resolution.action === 'approve') {
    const content = withDefaults(resolution.content, requestedSchema);
    return content === undefined ? { action: 'accept' } : { action: 'accept', content };
  }
  return { action: resolution.action === 'reject' ? 'decline' : 'cancel' };
}

/** The first elicitation request of `inputRequests` not answered yet, as an {@link InputRequest}. */
export function nextElicitation(
  inputRequests: Record<string, unknown>,
  answers: Record<string, unknown>,
): { key: string; request: InputRequest } | undefined {
  for (const [key, value] of Object.entries(inputRequests)) {
    if (key in answers) continue;
    const request = value as { method?: string; params?: Record<string, unknown> };
    if (request.method !== 'elicitation/create' || request.params === undefined) continue;
    return { key, request: toInputRequest(request.params) };
  }
  return undefined;
}

/** True when two requests ask the same (mode, message, URL and schema). */
export function sameRequest(a: InputRequest, b: InputRequest): boolean {
  return (
    a.mode === b.mode &&
    a.message === b.message &&
    a.url === b.url &&
    JSON.stringify(a.requestedSchema) === JSON.stringify(b.requestedSchema)
  );
}

function withDefaults(
  content: Record<string, unknown> | undefined,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return content;
  const filled: Record<string, unknown> = { ...content };
  for (const [name, property] of Object.entries(
    properties as Record<string, { default?: unknown }>,
  )) {
    if (filled[name] === undefined && property?.default !== undefined)
      filled[name] = property.default;
  }
  return content === undefined && Object.keys(filled).length === 0 ? undefined : filled;
}
