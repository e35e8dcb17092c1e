import type { FrameLocator, Page } from '@playwright/test';
import {
  cspViolations,
  expect,
  expectIdle,
  expectServerConnected,
  interruptOf,
  openPlayground,
  playgroundUrls,
  recordCspViolations,
  sendMessage,
  showTools,
  test,
  toolCard,
} from './fixtures.ts';

/** Adds the "Demo apps" preset (the demo server's `/apps/mcp`) and waits for its tools. */
async function addAppsDemo(page: Page): Promise<void> {
  await page.getByTestId('add-apps-demo').click();
  await expectServerConnected(page, 'demo-apps');
}

/** Runs a tool of the apps server from the Tool runner, with the given text fields. */
async function runAppTool(
  page: Page,
  tool: string,
  fields: Record<string, string> = {},
): Promise<void> {
  await page.getByTestId('tab-servers').click();
  const card = await showTools(page, 'demo-apps');
  await card
    .locator(`[data-testid="tool-item"][data-tool-name="${tool}"]`)
    .getByTestId('tool-run')
    .click();
  await expect(page.getByTestId('runner-tool')).toHaveValue(tool);
  const runner = page.getByTestId('tool-runner');
  for (const [name, value] of Object.entries(fields)) {
    await runner.locator(`input[id="runner_${name}"]`).fill(value);
  }
  await page.getByTestId('runner-run').click();
}

/** The view inside the sandbox proxy inside the runner's outcome. */
function viewFrame(page: Page): FrameLocator {
  return page
    .getByTestId('runner-outcome')
    .getByTestId('mcp-app')
    .frameLocator('iframe.sb-mcp-app-frame')
    .frameLocator('iframe');
}

test('a demo app renders in the sandbox, resizes, and calls an app-only tool through the bridge', async ({
  page,
}) => {
  await recordCspViolations(page);
  await openPlayground(page, ['demo']);
  await addAppsDemo(page);
  await runAppTool(page, 'show_chart', { series: 'sales' });

  const outer = page.getByTestId('runner-outcome').locator('iframe.sb-mcp-app-frame');
  // The outer frame is the proxy on the second loopback port, never the page's own origin. Its
  // `src` is set only once the bridge listens (McpAppView), so wait for it before reading it.
  await expect(outer).toHaveAttribute('src', /^http:\/\/127\.0\.0\.1:\d+\//);
  const proxySource = new URL((await outer.getAttribute('src')) ?? '');
  expect(proxySource.origin).not.toBe(new URL(playgroundUrls().url).origin);
  expect(proxySource.hostname).toBe('127.0.0.1');
  expect(await outer.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');

  const view = viewFrame(page);
  await expect(view.locator('#title')).toHaveText('Chart: sales');
  await expect(view.locator('#status')).toHaveText('5 points');
  await expect(view.locator('#input')).toHaveText('{"series":"sales"}');
  await expect(view.locator('.bar')).toHaveCount(5);
  // The inner frame: allow-scripts only, the view by srcdoc.
  const inner = page.frames().find((frame) => frame.url() === 'about:srcdoc');
  expect(inner).toBeDefined();
  const innerElement = await inner!.frameElement();
  expect(await innerElement.getAttribute('sandbox')).toBe('allow-scripts');
  // It grew to the view's height (ui/notifications/size-changed), from the 120 px start.
  await expect
    .poll(async () => Number.parseFloat(await outer.evaluate((element) => element.style.height)))
    .toBeGreaterThan(120);

  // `chart_data` is app-only and read-only: the view calls it with no approval.
  await view.getByRole('button', { name: 'Refresh' }).click();
  await expect(view.locator('#status')).toHaveText('Refreshed: 5 points');
  await expect(page.locator('.sb-mcp-app-consent')).toHaveCount(0);
  // The page's own policy lets the proxy frame in (`frame-src` names its origin) and nothing else.
  expect(await cspViolations(page)).toEqual([]);
});

test('an app’s call of a destructive tool waits for approval in the host, then runs once', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await addAppsDemo(page);
  await runAppTool(page, 'order_form');
  const view = viewFrame(page);
  await view.locator('#item').fill('tea');
  await view.getByRole('button', { name: 'Place order' }).click();
  await expect(view.locator('#outcome')).toHaveText('Waiting for approval…');

  const approval = page.getByTestId('runner-outcome').locator('.sb-mcp-app-consent');
  await expect(approval).toContainText('place_order');
  await expect(approval).toContainText('Requested by the app’s view, not by the model.');
  await expect(approval).toContainText('"item": "tea"');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(view.locator('#outcome')).toHaveText(/^Done: Ordered 2 × tea \(order \d+\)\.$/);
  await expect(approval).toHaveCount(0);

  // Declined: the view is told, the tool does not run.
  await view.getByRole('button', { name: 'Place order' }).click();
  await page
    .getByTestId('runner-outcome')
    .locator('.sb-mcp-app-consent')
    .getByRole('button', { name: 'Reject' })
    .click();
  await expect(view.locator('#outcome')).toHaveText('Failed: The user declined this call.');
});

test('an app’s call in the chat is an approval in the thread, kept in history with one output', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await addAppsDemo(page);
  await sendMessage(page, 'open the order form');
  await expectIdle(page);
  const view = toolCard(page, 'apps_order_form')
    .getByTestId('mcp-app')
    .frameLocator('iframe.sb-mcp-app-frame')
    .frameLocator('iframe');
  await view.locator('#item').fill('tea');
  await view.getByRole('button', { name: 'Place order' }).click();
  await expect(view.locator('#outcome')).toHaveText('Waiting for approval…');

  // The thread's own approval, marked as the view's; the call shows in the thread, waiting.
  const approval = interruptOf(page, 'approval');
  await expect(approval).toContainText('place_order');
  await expect(approval).toContainText(
    'Requested by the app’s view of apps_order_form, not by the model.',
  );
  await expect(approval).toContainText('"item": "tea"');
  await expect(page.locator('.sb-mcp-app-consent')).toHaveCount(0);
  const recorded = toolCard(page, 'apps_place_order');
  await expect(recorded.getByTestId('tool-call-requested-by')).toContainText(
    'Requested by the app’s view of apps_order_form',
  );
  // The recorded call mounts no second view.
  await expect(recorded.getByTestId('mcp-app')).toHaveCount(0);

  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(view.locator('#outcome')).toHaveText(/^Done: Ordered 2 × tea \(order \d+\)\.$/);
  await expect(approval).toHaveCount(0);
  await expect(recorded.getByTestId('tool-call-result')).toHaveText(/^Ordered 2 × tea/);

  // Stored with the thread: after a reload the call is there once, with its one output.
  await page.reload();
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expect(toolCard(page, 'apps_place_order')).toHaveCount(1);
  await expect(toolCard(page, 'apps_place_order').getByTestId('tool-call-result')).toHaveText(
    /^Ordered 2 × tea/,
  );
  await expect(
    toolCard(page, 'apps_place_order').getByTestId('tool-call-requested-by'),
  ).toBeVisible();
});

test.describe('a hostile view', () => {
  // The view's blocked fetch and navigation are reported by Chromium in the console.
  test.use({
    expectedConsoleErrors:
      /Content Security Policy|Failed to fetch|sandboxed|Unsafe attempt to initiate navigation|not allowed to navigate|net::ERR/i,
  });

  test('every escape attempt fails, and a forged sandbox-resource-ready is ignored', async ({
    page,
  }) => {
    await openPlayground(page, ['demo']);
    await addAppsDemo(page);
    const pageUrl = page.url();
    await page.evaluate(() => {
      localStorage.setItem('x', 'host secret');
      document.cookie = 'host=secret';
    });
    await runAppTool(page, 'probe');
    const view = viewFrame(page);
    await expect(view.locator('body')).toHaveAttribute('data-probe-done', 'true');

    const attempts = view.locator('[data-attempt]');
    const expected = [
      'host-dom',
      'parent-dom',
      'cookies',
      'local-storage',
      'indexeddb',
      'navigate-top',
      'fetch-undeclared',
      'open-javascript-link',
      'call-model-only-tool',
      'call-other-server-tool',
      'sampling',
      'forged-resource-ready',
    ];
    await expect(attempts).toHaveCount(expected.length);
    for (const name of expected) {
      await expect(view.locator(`[data-attempt="${name}"]`)).toContainText(`${name}: blocked`);
    }
    await expect(view.locator('[data-attempt="open-javascript-link"]')).toContainText(
      'only http and https',
    );
    await expect(view.locator('[data-attempt="call-model-only-tool"]')).toContainText(
      'may not call "model_only_note"',
    );
    await expect(view.locator('[data-attempt="call-other-server-tool"]')).toContainText(
      'may not call "get_weather"',
    );
    await expect(view.locator('[data-attempt="sampling"]')).toContainText('not supported');
    // The forged notification changed nothing: the probe is still the view, no second view.
    await expect(view.locator('#forged')).toHaveCount(0);
    await expect(view.locator('h3')).toHaveText('Probe');
    expect(page.frames().filter((frame) => frame.url() === 'about:srcdoc')).toHaveLength(1);
    // The host page stayed where it was, with its storage intact; no consent was asked.
    expect(page.url()).toBe(pageUrl);
    expect(await page.evaluate(() => localStorage.getItem('x'))).toBe('host secret');
    await expect(page.locator('.sb-mcp-app-consent')).toHaveCount(0);
    await expect(interruptOf(page, 'url')).toHaveCount(0);
  });
});

test('a proxy on the page’s own origin is refused: the text output shows instead', async ({
  page,
}) => {
  const { url } = playgroundUrls();
  await page.goto(`${url}?sandboxProxy=${encodeURIComponent(new URL('/sandbox.html', url).href)}`);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await addAppsDemo(page);
  await runAppTool(page, 'show_chart', { series: 'sales' });
  const app = page.getByTestId('runner-outcome').getByTestId('mcp-app');
  await expect(app.locator('.sb-mcp-app-note')).toContainText('own origin');
  await expect(app.locator('.sb-mcp-app-text')).toHaveText('Chart of sales: 5 points.');
  await expect(app.locator('iframe')).toHaveCount(0);
});

test('a view in the chat comes back live after a reload', async ({ page }) => {
  await openPlayground(page, ['demo']);
  await addAppsDemo(page);
  await sendMessage(page, 'show a chart of revenue');
  await expectIdle(page);
  const card = toolCard(page, 'apps_show_chart');
  const view = card
    .getByTestId('mcp-app')
    .frameLocator('iframe.sb-mcp-app-frame')
    .frameLocator('iframe');
  await expect(view.locator('#title')).toHaveText('Chart: revenue');
  await expect(card.getByTestId('tool-call-result')).toHaveText('Chart of revenue: 5 points.');

  await page.reload();
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expectServerConnected(page, 'demo-apps');
  // Re-mounted from the stored output (its `ui.resourceUri`), and live: it calls its tool again.
  await expect(view.locator('#title')).toHaveText('Chart: revenue');
  await expect(view.locator('#input')).toHaveText('{"series":"revenue"}');
  await view.getByRole('button', { name: 'Refresh' }).click();
  await expect(view.locator('#status')).toHaveText('Refreshed: 5 points');
});
