import type { ToolAnnotations } from '../vocabulary/interrupts.ts';

/** True only when the tool declares `readOnlyHint: true`. */
export function isReadOnly(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint === true;
}

/**
 * MCP default: a tool that is not read-only is destructive unless it says `destructiveHint:
 * false`. Unset means destructive.
 */
export function isDestructive(annotations: ToolAnnotations | undefined): boolean {
  if (isReadOnly(annotations)) return false;
  return annotations?.destructiveHint !== false;
}

/** True only when the tool says `destructiveHint: true` (and is not read-only). */
export function isDeclaredDestructive(annotations: ToolAnnotations | undefined): boolean {
  return !isReadOnly(annotations) && annotations?.destructiveHint === true;
}

/** Read-only tools are idempotent; otherwise only an explicit `idempotentHint: true` counts. */
export function isIdempotent(annotations: ToolAnnotations | undefined): boolean {
  return isReadOnly(annotations) || annotations?.idempotentHint === true;
}

/** MCP default: unset means open-world. */
export function isOpenWorld(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.openWorldHint !== false;
}
