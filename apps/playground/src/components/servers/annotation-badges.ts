import type { McpToolDescriptor } from '@switchboard/core';

/** One badge on a tool row. */
export interface Badge {
  label: string;
  tone: 'neutral' | 'safe' | 'risky' | 'danger';
}

/**
 * The annotations the server set (unset ones say nothing), plus an output schema marker. A tool
 * with neither a read-only nor a destructive hint is flagged: the client cannot tell its risk.
 */
export function annotationBadges(tool: McpToolDescriptor): Badge[] {
  const annotations = tool.annotations;
  const badges: Badge[] = [];
  if (annotations?.readOnlyHint === true) badges.push({ label: 'read-only', tone: 'safe' });
  if (annotations?.readOnlyHint !== true && annotations?.destructiveHint === true) {
    badges.push({ label: 'destructive', tone: 'danger' });
  }
  if (annotations?.readOnlyHint !== true && annotations?.destructiveHint === false) {
    badges.push({ label: 'not destructive', tone: 'neutral' });
  }
  if (annotations?.idempotentHint === true) badges.push({ label: 'idempotent', tone: 'neutral' });
  if (annotations?.openWorldHint === true) badges.push({ label: 'open world', tone: 'risky' });
  if (annotations?.openWorldHint === false) badges.push({ label: 'closed world', tone: 'neutral' });
  if (
    annotations === undefined ||
    (annotations.readOnlyHint === undefined && annotations.destructiveHint === undefined)
  ) {
    badges.push({ label: 'no safety hints', tone: 'risky' });
  }
  if (tool.outputSchema !== undefined) badges.push({ label: 'output schema', tone: 'neutral' });
  return badges;
}
