import type { Page } from 'playwright-core';
import type { Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type { ManyTabsOptions } from '../browser/pages/many-tabs-page.ts';
import type { Figure } from '../report.ts';
import { pairedRatios, summarize } from '../stats.ts';

const TABS = 8;
const PAIRS = 7;
const TARGET_RATIO = 1.5;
/** Without shared streams a stalled tab waits for this long before it counts as stalled. */
const STALL_LIMIT_MS = 8_000;

/** Opens one more tab of `first`'s context on the bench page and its clients. */
async function openTab(first: Page, origin: string, options: ManyTabsOptions): Promise<Page> {
  const tab = await first.context().newPage();
  await tab.goto(`${origin}/`);
  await tab.waitForFunction(() => (window as { benchReady?: boolean }).benchReady === true);
  await tab.evaluate(
    (all) => (window.benchOpenTab as NonNullable<Window['benchOpenTab']>)(all),
    options,
  );
  return tab;
}

function call(tab: Page): Promise<number> {
  return tab.evaluate(() => (window.benchCall as NonNullable<Window['benchCall']>)());
}

/** How long a tab may take to close its clients before the tab itself is closed. */
const CLOSE_LIMIT_MS = 10_000;

async function closeTabs(tabs: readonly Page[]): Promise<void> {
  for (const tab of tabs) {
    // A client's close may wait for one of the browser's six connections, which stalled tabs
    // hold: bounded, so the row cannot hang on it (closing the tab ends what is left).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      tab
        .evaluate(() => (window.benchCloseTab as NonNullable<Window['benchCloseTab']>)())
        .catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_LIMIT_MS))),
    ]);
    clearTimeout(timer);
    await tab.close({ runBeforeUnload: false }).catch(() => undefined);
  }
}

/**
 * Issue 17, item 6: eight tabs of one origin on one demo server (both endpoints, as a
 * playground tab), a tool call in the 8th against the 1st. Chromium opens at most 6 HTTP/1.1
 * connections per host, so with a stream per tab the 3rd tab already stalls; with shared streams
 * one tab holds them.
 */
export const manyTabsBenchmark: Benchmark = {
  id: 11,
  key: 'many-tabs',
  title: 'Eight tabs on one MCP server in Chromium: a tool call in the 8th tab vs the 1st',
  baseline: 'the same call in the 1st tab, all eight open',
  target: `8th / 1st ≤ ${TARGET_RATIO}×, every tab answers`,
  async run({ servers, log }) {
    const url = new URL('../browser/pages/many-tabs-page.ts', import.meta.url);
    const base = { modernUrl: servers.modernUrl, legacyUrl: servers.legacyUrl };
    const figures: Figure[] = [];
    const notes: string[] = [];

    // Before: every tab holds its own streams. Count the tabs that open within the limit.
    const unshared = await withBrowserPage(url, async ({ page, origin }) => {
      const options = { ...base, share: false, timeoutMs: STALL_LIMIT_MS };
      const tabs: Page[] = [];
      let opened = 0;
      try {
        for (let index = 0; index < TABS; index += 1) {
          try {
            tabs.push(await openTab(page, origin, options));
            opened += 1;
          } catch (error) {
            log(`without sharing, tab ${index + 1} stalled: ${String(error).split('\n')[0]}`);
            break;
          }
        }
      } finally {
        await closeTabs(tabs);
      }
      return opened;
    });
    figures.push({
      label: `without shared streams: tabs that listed their tools within ${STALL_LIMIT_MS / 1000} s`,
      value: unshared,
      unit: 'count',
      note: unshared < TABS ? `tab ${unshared + 1} stalled` : 'none stalled',
    });

    // After: shared streams (the default).
    const { first, eighth } = await withBrowserPage(url, async ({ page, origin }) => {
      const options = { ...base, share: true, timeoutMs: 60_000 };
      const tabs: Page[] = [];
      try {
        for (let index = 0; index < TABS; index += 1)
          tabs.push(await openTab(page, origin, options));
        const [one, eight] = [tabs[0] as Page, tabs[TABS - 1] as Page];
        await call(one); // warm-up of both
        await call(eight);
        const firstMs: number[] = [];
        const eighthMs: number[] = [];
        for (let pair = 0; pair < PAIRS; pair += 1) {
          // Alternate which tab goes first, so drift hits both alike.
          if (pair % 2 === 0) {
            firstMs.push(await call(one));
            eighthMs.push(await call(eight));
          } else {
            eighthMs.push(await call(eight));
            firstMs.push(await call(one));
          }
        }
        // Every tab answers.
        await Promise.all(tabs.map((tab) => call(tab)));
        return { first: firstMs, eighth: eighthMs };
      } finally {
        await closeTabs(tabs);
      }
    });
    const ratio = summarize(pairedRatios(eighth, first));
    log(`8th / 1st median ${ratio.median.toFixed(2)}`);
    figures.push(
      { label: '8th tab / 1st tab, tool call latency', value: ratio, unit: 'ratio' },
      { label: '1st tab: tool call', value: summarize(first), unit: 'ms' },
      { label: '8th tab: tool call', value: summarize(eighth), unit: 'ms' },
    );
    notes.push(
      'One browser context, eight tabs of one origin on the bench page, each with a client per demo endpoint (2026-07-28 and 2025) that listed tools and resources, as a playground tab.',
      `Without shared streams each tab holds the 2025 GET stream and the 2026-07-28 list_changed streams; Chromium's 6 connections per host then run out (the count above).`,
    );
    const met = ratio.median <= TARGET_RATIO;
    return {
      verdict: met ? 'met' : 'missed',
      headline: `8th/1st ×${ratio.median.toFixed(2)}; without sharing ${unshared} of ${TABS} tabs opened`,
      figures,
      method: `${PAIRS} alternating pairs of get_weather calls in the 1st and 8th tab, after a warm-up call each; then one call in every tab at once.`,
      notes,
    };
  },
};
