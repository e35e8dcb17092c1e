import type { Page } from '@playwright/test';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import {
  addServer,
  expect,
  expectIdle,
  expectServerConnected,
  expectSumAnswer,
  openPlayground,
  playgroundUrls,
  sendMessage,
  serverCard,
  showTools,
  test,
  unusedPort,
} from './fixtures.ts';

/** Runs a tool of `server` in the Tool runner with string arguments. */
async function runTool(
  page: Page,
  server: string,
  tool: string,
  args: Record<string, string>,
): Promise<void> {
  const card = await showTools(page, server);
  await card
    .locator(`[data-testid="tool-item"][data-tool-name="${tool}"]`)
    .getByTestId('tool-run')
    .click();
  const runner = page.getByTestId('tool-runner');
  await expect(page.getByTestId('runner-tool')).toHaveValue(tool);
  for (const [name, value] of Object.entries(args)) {
    await runner.locator(`input[id="runner_${name}"]`).fill(value);
  }
  await page.getByTestId('runner-run').click();
}

test('the default servers show their status, protocol era and version, and tools', async ({
  page,
}) => {
  await openPlayground(page);
  const demo = await showTools(page, 'demo');
  await expect(demo.getByTestId('server-protocol')).toHaveText(
    '2026-07-28, modern era (stateless)',
  );
  await expect(demo.getByTestId('server-info')).toHaveText('switchboard-demo-modern 1.0.0');
  await expect(serverCard(page, 'demo-2025').getByTestId('server-protocol')).toContainText(
    /^2025-\d\d-\d\d, 2025 era/,
  );
  const everything = serverCard(page, 'everything');
  await expect(everything.getByTestId('server-protocol')).toContainText(
    /^2025-\d\d-\d\d, 2025 era/,
  );
  await expect(everything.getByTestId('server-url')).toHaveText(playgroundUrls().mcpUrl);

  // Annotation badges, as the server set them.
  const deleteFile = demo.locator('[data-testid="tool-item"][data-tool-name="delete_file"]');
  await expect(deleteFile.locator('[data-hint="destructive"]')).toBeVisible();
  const readFile = demo.locator('[data-testid="tool-item"][data-tool-name="read_file"]');
  await expect(readFile.locator('[data-hint="read-only"]')).toBeVisible();
  const weather = demo.locator('[data-testid="tool-item"][data-tool-name="get_weather"]');
  await expect(weather.locator('[data-hint="output schema"]')).toBeVisible();
  await expect(weather).toContainText('model sees demo_get_weather');

  // The 2025-era servers were never sent the 2026 probe: the page answered it (see the traffic).
  await everything.locator('.traffic summary').click();
  await expect(everything.getByTestId('traffic-list')).toContainText('POST server/discover');
  await expect(everything.getByTestId('traffic-list')).toContainText('answered in the page');
  await expect(everything.getByTestId('traffic-list')).toContainText('POST initialize');
});

test.describe('servers that fail', () => {
  test.use({
    // The browser logs refused connections and the expired session's 404 itself.
    expectedConsoleErrors:
      /^Failed to load resource: (net::ERR_CONNECTION_REFUSED|the server responded with a status of 404 \(Not Found\))$/,
  });

  let privateServer: DemoServer | undefined;
  test.afterEach(async () => {
    await privateServer?.close();
    privateServer = undefined;
  });

  test('an unreachable server says so clearly; the chat works without it; reconnecting recovers', async ({
    page,
  }) => {
    await openPlayground(page, ['everything']);
    const port = await unusedPort();
    // A 2025-era endpoint: its tool list may be cached (2026-07-28 servers say how long, and
    // the demo server's modern endpoint says "do not cache").
    await addServer(page, {
      name: 'mine',
      url: `http://127.0.0.1:${port}/legacy/mcp`,
      protocol: '2025',
      toolPrefix: 'mine_',
      headers: [{ name: 'Authorization', value: 'Bearer e2e-secret-token' }],
    });

    const card = serverCard(page, 'mine');
    await expect(card).toHaveAttribute('data-status', 'error');
    const failure = card.getByTestId('server-error');
    await expect(failure.locator('.sb-error-sentence')).toHaveText(
      'Could not reach "mine": it is not running, or it does not let this page in (CORS). Start it or allow this origin, then reconnect.',
    );
    // Unreachable: the one failure where waiting for the server and reconnecting helps.
    await expect(failure.getByTestId('server-error-next')).toHaveText(
      'The chat works without its tools. Reconnect when it is back.',
    );
    await expect(failure.locator('.sb-error-code')).toHaveText('connection_refused');
    await expect(failure.locator('.sb-error-message')).toContainText(
      'Could not reach MCP server "mine"',
    );
    // Header values are masked.
    await expect(card.getByTestId('server-headers')).toContainText('Authorization: ••••••••');
    await expect(page.locator('body')).not.toContainText('e2e-secret-token');
    await expect(page.getByTestId('chat-notices')).toContainText('mine: not connected');

    // The chat keeps working, without that server's tools.
    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);

    // The server comes up: Reconnect.
    privateServer = await startDemoServer({ port, toolCount: 4 });
    const authorization: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(privateServer?.url ?? '-')) {
        authorization.push(request.headers()['authorization'] ?? '');
      }
    });
    await card.getByTestId('server-reconnect').click();
    await expectServerConnected(page, 'mine');
    await expect(card.getByTestId('tool-count')).toHaveText('15 tools');
    await expect(page.getByTestId('chat-notices')).toHaveCount(0);
    // The header went with every request.
    expect(authorization.length).toBeGreaterThan(0);
    expect(new Set(authorization)).toEqual(new Set(['Bearer e2e-secret-token']));

    await runTool(page, 'mine', 'get_weather', { city: 'Paris' });
    await expect(
      page.getByTestId('runner-outcome').getByTestId('tool-call-structured'),
    ).toContainText('"city": "Paris"');
    await page.getByTestId('tab-servers').click();

    // The tool list is cached in IndexedDB: with the server down, a reload still lists them.
    await privateServer.close();
    privateServer = undefined;
    await page.reload();
    await expect(card).toHaveAttribute('data-status', 'error');
    await expect(card.getByTestId('tool-count')).toHaveText('15 tools');
    await expect(card.getByTestId('server-protocol')).toContainText('2025 era');
  });

  test('a server that went away after connecting: the call says "then reconnect", and the card has Reconnect', async ({
    page,
  }) => {
    const port = await unusedPort();
    privateServer = await startDemoServer({ port, toolCount: 4 });
    await openPlayground(page, ['everything']);
    await addServer(page, {
      name: 'mine',
      url: `http://127.0.0.1:${port}/legacy/mcp`,
      protocol: '2025',
      toolPrefix: 'mine_',
    });
    await expectServerConnected(page, 'mine');
    const card = serverCard(page, 'mine');

    await privateServer.close();
    privateServer = undefined;
    await runTool(page, 'mine', 'get_weather', { city: 'Paris' });
    await expect(page.getByTestId('runner-outcome')).toContainText('then reconnect.');

    // The card may still show the last good state: Reconnect is there all the same.
    await page.getByTestId('tab-servers').click();
    const reconnect = card.getByTestId('server-reconnect');
    await expect(reconnect).toBeEnabled();
    privateServer = await startDemoServer({ port, toolCount: 4 });
    await reconnect.click();
    await expectServerConnected(page, 'mine');
    await runTool(page, 'mine', 'get_weather', { city: 'Paris' });
    await expect(
      page.getByTestId('runner-outcome').getByTestId('tool-call-structured'),
    ).toContainText('"city": "Paris"');
  });

  test('an expired session is replaced at once, and the call succeeds', async ({ page }) => {
    privateServer = await startDemoServer({ toolCount: 0 });
    await openPlayground(page, ['everything']);
    await addServer(page, {
      name: 'legacy-private',
      url: privateServer.legacyUrl,
      protocol: '2025',
      toolPrefix: 'old_',
    });
    await expectServerConnected(page, 'legacy-private');
    const card = serverCard(page, 'legacy-private');
    await expect(card.getByTestId('server-protocol')).toContainText('2025 era');

    await runTool(page, 'legacy-private', 'read_file', { path: 'notes.txt' });
    const result = page.getByTestId('runner-outcome').getByTestId('tool-call-result');
    await expect(result).toContainText('Hello from the Switchboard demo server.');

    // The server forgets every session.
    const response = await page.request.post(`${privateServer.url}/control/faults`, {
      data: { expireSessions: true },
    });
    expect(response.ok()).toBe(true);

    await page.getByTestId('runner-tool').selectOption('read_file');
    await page.getByTestId('tool-runner').locator('input[id="runner_path"]').fill('todo.txt');
    await page.getByTestId('runner-run').click();
    await expect(result).toContainText('Contents of todo.txt');
    await expect(result).not.toHaveClass(/--error/);

    await page.getByTestId('tab-servers').click();
    await expect(card).toHaveAttribute('data-status', 'connected');

    // What happened is in the server's traffic: a 404 for the old session, a new one, the retry.
    await card.locator('.traffic summary').click();
    const expired = card.locator(
      '[data-testid="traffic-entry"][data-status="404"]:has-text("POST tools/call")',
    );
    await expect(expired.first()).toContainText(
      'the server does not know this session; the client opened a new session',
    );
    await expect(card.getByTestId('traffic-list')).toContainText('POST initialize');
  });

  test('a GET stream refused with 404 is not called an expired session', async ({ page }) => {
    privateServer = await startDemoServer({ toolCount: 0 });
    privateServer.faults.getStream = 404;
    await openPlayground(page, ['everything']);
    await addServer(page, {
      name: 'no-stream',
      url: privateServer.legacyUrl,
      protocol: '2025',
      toolPrefix: 'old_',
    });
    await expectServerConnected(page, 'no-stream');
    const card = serverCard(page, 'no-stream');
    await card.locator('.traffic summary').click();
    const refused = card.locator('[data-testid="traffic-entry"][data-status="404"]');
    await expect(refused.first()).toContainText('GET');
    await expect(refused.first()).toContainText('no event stream for this session');
    // The session is fine: no new one is opened, and no label says so.
    await expect(card.getByTestId('traffic-list')).not.toContainText('new session');
    await expect(card.getByTestId('traffic-list')).not.toContainText('expired');
    await expect(
      card.locator('[data-testid="traffic-entry"]:has-text("POST initialize")'),
    ).toHaveCount(1);
  });
});

test('servers can be removed and restored; the list persists', async ({ page }) => {
  await openPlayground(page);
  await serverCard(page, 'demo-2025').getByTestId('server-remove').click();
  await serverCard(page, 'demo-2025').getByTestId('server-remove-confirm').click();
  await expect(serverCard(page, 'demo-2025')).toHaveCount(0);

  await page.reload();
  await expectServerConnected(page, 'demo');
  await expect(serverCard(page, 'demo-2025')).toHaveCount(0);

  await page.getByTestId('restore-servers').click();
  await expectServerConnected(page, 'demo-2025');
  await expect(page.getByTestId('restore-servers')).toHaveCount(0);
});

test('Escape closes the add-server form', async ({ page }) => {
  await openPlayground(page, ['demo']);
  await page.getByTestId('add-server-toggle').click();
  const form = page.getByTestId('add-server-form');
  await form.getByTestId('add-server-name').fill('draft');
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
});
