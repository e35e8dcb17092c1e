import type { Page } from '@playwright/test';
import {
  expect,
  expectIdle,
  openPlayground,
  playgroundUrls,
  sendMessage,
  serverCard,
  test,
  toolCard,
  assistantTexts,
} from './fixtures.ts';

// Issue 17, item 6: Chromium opens at most 6 HTTP/1.1 connections per host, and each tab used to
// hold its own long-lived streams to every server (the 2025 GET stream, the 2026-07-28
// `subscriptions/listen` streams), so from the third tab on one demo server the tabs stalled
// each other. The tabs now share those streams (one tab holds them, docs/architecture.md "Many
// tabs, one server"), so eight tabs all get their answers. No timing here: the benchmark
// (bench/benchmarks/many-tabs.ts) measures the 8th tab against the 1st.

const TABS = 8;
const servers = ['demo', 'demo-2025'] as const;

/** Collects a page's console errors (the fixture watches the first page only). */
function consoleErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`Uncaught: ${error.message}`));
  return errors;
}

/** Starts a new thread in `tab` and asks for the weather (a call on the demo server). */
async function askWeather(tab: Page): Promise<void> {
  await tab.getByTestId('new-thread').click();
  await sendMessage(tab, 'weather in Oslo');
}

async function expectWeatherAnswer(tab: Page): Promise<void> {
  const card = toolCard(tab, 'demo_get_weather');
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('tool-call-structured')).toContainText('"city": "Oslo"');
  await expect(assistantTexts(tab).last()).toContainText('The tool returned:');
  await expectIdle(tab);
  await expect(tab.getByTestId('chat-error')).toHaveCount(0);
}

test('eight tabs on one server stay connected and all answer, the 8th as the 1st', async ({
  page,
  context,
}) => {
  // Eight playground pages on a machine shared with other work take a while to load.
  test.setTimeout(240_000);
  await openPlayground(page, servers);
  // One after the other: seven pages loading at once would only measure the machine.
  const others: { tab: Page; errors: string[] }[] = [];
  for (let index = 1; index < TABS; index += 1) {
    const tab = await context.newPage();
    const errors = consoleErrorsOf(tab);
    await openPlayground(tab, servers);
    others.push({ tab, errors });
  }
  const tabs = [page, ...others.map((other) => other.tab)];

  // The 8th tab first, alone: with a stream per tab it never reached the server.
  const last = tabs[TABS - 1] as Page;
  await askWeather(last);
  await expectWeatherAnswer(last);

  // Then every tab at once.
  await Promise.all(tabs.map((tab) => askWeather(tab)));
  for (const tab of tabs) await expectWeatherAnswer(tab);

  // Every tab still lists its servers as connected: none stalled on a listing.
  for (const tab of tabs) {
    for (const name of servers) {
      await expect(
        tab.locator(`[data-testid="server-card"][data-server-name="${name}"]`),
      ).toHaveAttribute('data-status', 'connected');
    }
  }
  for (const other of others) expect(other.errors).toEqual([]);
});

/** Toggles the demo server's `dynamic_tool`, which sends `list_changed` on both eras. */
async function toggleDynamicTool(): Promise<void> {
  const response = await fetch(`${playgroundUrls().demoUrl}/control/tools-changed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
}

test('a tool list change reaches every tab, also after the tab holding the streams closed', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const toolCount = (tab: Page, name: string) => serverCard(tab, name).getByTestId('tool-count');
  // The first tab takes the lead; the second follows and hears changes through it.
  await openPlayground(page, servers);
  const other = await context.newPage();
  const otherErrors = consoleErrorsOf(other);
  await openPlayground(other, servers);
  const before = Object.fromEntries(
    await Promise.all(
      servers.map(async (name) => [name, await toolCount(other, name).textContent()] as const),
    ),
  );

  let toggled = false;
  try {
    await toggleDynamicTool();
    toggled = true;
    for (const tab of [page, other]) {
      for (const name of servers)
        await expect(toolCount(tab, name)).not.toHaveText(before[name] ?? '');
    }

    // The leading tab goes away: the other takes the streams over and still hears the change back.
    await page.close();
    await toggleDynamicTool();
    toggled = false;
    for (const name of servers) await expect(toolCount(other, name)).toHaveText(before[name] ?? '');
  } finally {
    if (toggled) await toggleDynamicTool(); // leave the shared demo server as it was
  }
  expect(otherErrors).toEqual([]);
});
