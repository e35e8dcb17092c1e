import type { Usage } from '../vocabulary/items.ts';

/** Adds `b` to `a` (optional counters stay absent unless either side has them). */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return a;
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined) {
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  }
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) {
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  }
  return sum;
}
