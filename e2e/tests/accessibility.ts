import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

/** The impacts this suite does not accept (axe also reports `minor` and `moderate`). */
const blocking = new Set(['serious', 'critical']);

/**
 * Runs axe-core (every rule of WCAG 2.0–2.2 A/AA and axe's best practices) on the page as it is
 * now and fails on any serious or critical violation, listing rule, impact and the elements hit.
 * `state` names what the page shows (`chat: approval`), for the message and for the
 * `axe` annotation of the test, which records every state's count of violations by impact.
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const counts: Record<string, number> = {};
  for (const violation of results.violations) {
    const impact = violation.impact ?? 'unknown';
    counts[impact] = (counts[impact] ?? 0) + violation.nodes.length;
  }
  test.info().annotations.push({ type: 'axe', description: `${state}: ${JSON.stringify(counts)}` });
  const serious = results.violations
    .filter((violation) => blocking.has(violation.impact ?? ''))
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .map(
            (node) =>
              `${node.target.join(' ')} (${(node.failureSummary ?? '').replace(/\s+/g, ' ')})`,
          )
          .join(', ')}`,
    );
  expect(serious, `serious or critical axe violations in "${state}"`).toEqual([]);
}
