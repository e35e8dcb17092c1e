import type { APIRequestContext, BrowserContext, Locator, Page, Request } from '@playwright/test';
import {
  expect,
  expectServerConnected,
  openPlayground,
  playgroundUrls,
  serverCard,
  showTools,
  test,
} from './fixtures.ts';

/** The preset's name in the Servers panel ("Demo (OAuth)"). */
const server = 'demo-oauth';
/** The title of the test authorization server's consent page. */
const consentTitle = 'Sign in to Switchboard demo';
/**
 * A request sent with an expired access token gets 401: the browser logs it as a failed
 * resource load. Nothing else may reach the console of either tab.
 */
const expectedConsoleErrors =
  /^Failed to load resource: the server responded with a status of 401 \(Unauthorized\)$/;
/**
 * How long the refresh requests take to reach the authorization server (a slow authorization
 * server): long enough that the other tab's request, sent at the same moment, surely fails with
 * the expired token too and needs a refresh while the first one is still in flight.
 */
const slowRefreshMs = 1_000;
/**
 * The refresh coordinator answers a refresh of tokens saved less than 2 s ago from storage: a
 * 401 right after a refresh was caused by the token it replaced. Real access tokens live far
 * longer, so each round expires the tokens at least this long after the previous refresh, as a
 * real expiry would.
 */
const justRefreshedMs = 2_500;

test.use({ expectedConsoleErrors });

/** One refresh-token request that left the browser. */
interface RefreshRequest {
  /** `'A'` or `'B'`. */
  tab: string;
  sentAt: number;
  /** When its response was read (or the request failed). */
  doneAt?: number;
}

/** What the tabs' network traffic showed: times only, token values are never read. */
interface Traffic {
  /** Per tab, when a response 401 from the protected MCP endpoint arrived. */
  unauthorizedAt: Record<string, number[]>;
  refreshes: RefreshRequest[];
}

function isRefreshRequest(request: Request): boolean {
  if (request.method() !== 'POST' || new URL(request.url()).pathname !== '/token') return false;
  return new URLSearchParams(request.postData() ?? '').get('grant_type') === 'refresh_token';
}

/** Records the tabs' 401s from `protectedUrl` and their refresh-token requests, from now on. */
function watchTraffic(tabs: Record<string, Page>, protectedUrl: string): Traffic {
  const traffic: Traffic = { unauthorizedAt: {}, refreshes: [] };
  const pending = new Map<Request, RefreshRequest>();
  const done = (request: Request) => {
    const refresh = pending.get(request);
    if (refresh !== undefined) refresh.doneAt = Date.now();
    pending.delete(request);
  };
  for (const [tab, page] of Object.entries(tabs)) {
    const unauthorizedAt: number[] = [];
    traffic.unauthorizedAt[tab] = unauthorizedAt;
    page.on('response', (response) => {
      if (response.url() === protectedUrl && response.status() === 401) {
        unauthorizedAt.push(Date.now());
      }
    });
    page.on('request', (request) => {
      if (!isRefreshRequest(request)) return;
      const refresh: RefreshRequest = { tab, sentAt: Date.now() };
      traffic.refreshes.push(refresh);
      pending.set(request, refresh);
    });
    page.on('requestfinished', done);
    page.on('requestfailed', done);
  }
  return traffic;
}

/** Holds every refresh-token request of the context for {@link slowRefreshMs} before sending it. */
async function slowDownRefreshes(context: BrowserContext, tokenUrl: string): Promise<void> {
  await context.route(tokenUrl, async (route) => {
    if (isRefreshRequest(route.request())) {
      await new Promise((resolve) => setTimeout(resolve, slowRefreshMs));
    }
    await route.continue();
  });
}

/**
 * Console errors and uncaught errors of a page the `consoleErrors` fixture does not watch (it
 * watches `page` only), minus the expected 401 lines.
 */
function watchConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !expectedConsoleErrors.test(message.text())) {
      errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => errors.push(`Uncaught: ${error.message}`));
  return errors;
}

/**
 * Control requests open a connection each: minutes apart, a kept-alive socket may be closed by
 * the server (Node's 5 s keep-alive timeout) just as it is reused, which fails the request with
 * ECONNRESET ("socket hang up").
 */
const NO_KEEP_ALIVE = { connection: 'close' };

/** The demo server's count of token requests from `clientId`, by grant type. */
async function tokenRequests(
  request: APIRequestContext,
  clientId: string,
): Promise<{ authorization_code: number; refresh_token: number }> {
  const response = await request.get(
    `${playgroundUrls().demoUrl}/control/oauth/token-requests?clientId=${encodeURIComponent(clientId)}`,
    { headers: NO_KEEP_ALIVE },
  );
  expect(response.status()).toBe(200);
  return (await response.json()) as { authorization_code: number; refresh_token: number };
}

/** Expires every access token issued to `clientId`; returns how many were still valid. */
async function expireAccessTokens(request: APIRequestContext, clientId: string): Promise<number> {
  const response = await request.post(
    `${playgroundUrls().demoUrl}/control/oauth/expire-access-tokens`,
    { data: { clientId }, headers: NO_KEEP_ALIVE },
  );
  expect(response.status()).toBe(200);
  return ((await response.json()) as { expired: number }).expired;
}

/**
 * Clicks the buttons (one per tab) at the same instant: each tab sets a timer for one shared
 * wall-clock deadline (the tabs and the test run on one machine), so neither click waits for the
 * other tab's request to finish.
 */
async function clickTogether(buttons: readonly Locator[]): Promise<void> {
  for (const button of buttons) await expect(button).toBeEnabled();
  const at = Date.now() + 300;
  await Promise.all(
    buttons.map((button) =>
      button.evaluate(
        (element: HTMLElement, deadline: number) =>
          new Promise<void>((resolve) => {
            setTimeout(
              () => {
                element.click();
                resolve();
              },
              Math.max(0, deadline - Date.now()),
            );
          }),
        at,
      ),
    ),
  );
}

/** The card is connected with its tools, signed in, and asks for nothing. */
async function expectStillSignedIn(page: Page): Promise<void> {
  const card = serverCard(page, server);
  await expectServerConnected(page, server);
  await expect(card.getByTestId('server-account')).toHaveAttribute('data-signed-in', 'true');
  await expect(card.getByTestId('server-needs-auth')).toHaveCount(0);
  await expect(page.getByTestId('auth-banner')).toHaveCount(0);
}

/** Clicks "Refresh tools" in every tab at once; waits until each listed the tools again. */
async function refreshToolsTogether(tabs: readonly Page[]): Promise<void> {
  const buttons = tabs.map((tab) => serverCard(tab, server).getByTestId('server-refresh'));
  await clickTogether(buttons);
  for (const [index, tab] of tabs.entries()) {
    // Disabled while it lists; gone (Reconnect instead) had it failed.
    await expect(buttons[index] as Locator).toBeEnabled();
    await expectStillSignedIn(tab);
  }
}

/** Opens `get_weather` in the Tool runner with `city` filled in. */
async function prepareWeatherRun(page: Page, city: string): Promise<void> {
  const card = await showTools(page, server);
  await card
    .locator('[data-testid="tool-item"][data-tool-name="get_weather"]')
    .getByTestId('tool-run')
    .click();
  await expect(page.getByTestId('runner-tool')).toHaveValue('get_weather');
  await page.getByTestId('tool-runner').locator('input[id="runner_city"]').fill(city);
}

test('two tabs share one sign-in, and an expired token is refreshed once for both', async ({
  page,
  context,
  request,
}) => {
  const { demoUrl } = playgroundUrls();
  const protectedUrl = `${demoUrl}/protected/mcp`;
  const tabA = page;

  // Every tab keeps one standing stream open per demo server (the 2025 server's GET stream, the
  // 2026-07-28 servers' subscriptions/listen), all to the demo server's host: with "demo",
  // "demo-2025" and "demo-oauth" in two tabs that is six, Chromium's limit of HTTP/1.1
  // connections per host, and every further request to that host waits forever in both tabs.
  // So the tabs keep only the OAuth demo of the demo servers (the list is shared through
  // localStorage).
  await openPlayground(tabA, ['everything', 'demo', 'demo-2025']);
  for (const name of ['demo', 'demo-2025']) {
    await serverCard(tabA, name).getByTestId('server-remove').click();
    await serverCard(tabA, name).getByTestId('server-remove-confirm').click();
    await expect(serverCard(tabA, name)).toHaveCount(0);
  }

  // Tab A signs in through the consent popup, as oauth.spec.ts does.
  await tabA.getByTestId('add-oauth-demo').click();
  const cardA = serverCard(tabA, server);
  await expect(cardA).toHaveAttribute('data-status', 'needs-auth');
  const popupOpened = context.waitForEvent('page');
  await cardA.getByTestId('server-connect').click();
  const popup = await popupOpened;
  await expect(popup).toHaveTitle(consentTitle);
  const authorizationServer = new URL(popup.url()).origin;
  // The client this browser registered: the control routes count and expire its tokens only
  // (other tests may use the same authorization server meanwhile).
  const clientId = new URL(popup.url()).searchParams.get('client_id') ?? '';
  expect(clientId).not.toBe('');
  await popup.getByRole('button', { name: 'Allow' }).click();
  await expect.poll(() => popup.isClosed()).toBe(true);
  await expectStillSignedIn(tabA);
  expect(await tokenRequests(request, clientId)).toEqual({
    authorization_code: 1,
    refresh_token: 0,
  });

  // Tab B: same origin, same storage. The server list (localStorage) and the tokens (IndexedDB)
  // are there: signed in, with no consent.
  let pagesOpened = 0;
  context.on('page', () => (pagesOpened += 1));
  const tabB = await context.newPage();
  const tabBErrors = watchConsoleErrors(tabB);
  await openPlayground(tabB, ['everything', server]);
  await expectStillSignedIn(tabB);
  await expect(serverCard(tabB, server).getByTestId('server-account-scope')).toHaveText(
    'mcp:tools',
  );
  expect(pagesOpened, 'pages opened: tab B, and no consent popup').toBe(1);
  expect(await tokenRequests(request, clientId)).toEqual({
    authorization_code: 1,
    refresh_token: 0,
  });

  await slowDownRefreshes(context, `${authorizationServer}/token`);
  const traffic = watchTraffic({ A: tabA, B: tabB }, protectedUrl);
  let lastRefreshAt = Date.now();

  /**
   * Expires the access tokens and runs `useServer` (both tabs use the server at once, and
   * succeed). Checks that each tab's request failed with 401 before the refresh was answered,
   * so each tab needed a refresh while the other's was in flight; that exactly one refresh
   * request left the browser and reached the authorization server; and that both tabs stay
   * signed in. Returns the authorization server's count of refreshes after it.
   */
  async function round(name: string, useServer: () => Promise<void>): Promise<number> {
    return await test.step(name, async () => {
      const wait = lastRefreshAt + justRefreshedMs - Date.now();
      if (wait > 0) await tabA.waitForTimeout(wait);
      const before = await tokenRequests(request, clientId);
      const startedAt = Date.now();
      const refreshesBefore = traffic.refreshes.length;
      // One valid access token: every refresh replaced the previous one, none added another.
      expect(await expireAccessTokens(request, clientId)).toBe(1);

      await useServer();

      const after = await tokenRequests(request, clientId);
      expect(after.authorization_code).toBe(before.authorization_code);
      expect(after.refresh_token - before.refresh_token, 'refreshes reaching the AS').toBe(1);
      const sent = traffic.refreshes.slice(refreshesBefore);
      expect(sent, 'refresh requests sent by the two tabs').toHaveLength(1);
      const answeredAt = sent[0]?.doneAt ?? Number.POSITIVE_INFINITY;
      for (const [tab, times] of Object.entries(traffic.unauthorizedAt)) {
        const first = times.find((time) => time >= startedAt);
        expect(first, `tab ${tab}: a 401 before the refresh was answered`).toBeLessThan(answeredAt);
      }
      lastRefreshAt = Date.now();
      return after.refresh_token;
    });
  }

  // Round 1: "Refresh tools" in both tabs at once (tools/list, 401, refresh, list again).
  expect(
    await round('round 1: Refresh tools in both tabs', () => refreshToolsTogether([tabA, tabB])),
  ).toBe(1);

  // Round 2: run a tool from the Tool runner in both tabs at once.
  await prepareWeatherRun(tabA, 'Bergen');
  await prepareWeatherRun(tabB, 'Oslo');
  expect(
    await round('round 2: the Tool runner in both tabs', async () => {
      await clickTogether([tabA.getByTestId('runner-run'), tabB.getByTestId('runner-run')]);
      for (const [tab, city] of [
        [tabA, 'Bergen'],
        [tabB, 'Oslo'],
      ] as const) {
        const outcome = tab.getByTestId('runner-outcome');
        await expect(outcome.getByTestId('tool-call-structured')).toContainText(
          `"city": "${city}"`,
        );
        await expect(outcome.getByTestId('runner-needs-auth')).toHaveCount(0);
      }
    }),
  ).toBe(2);

  // The grant survived (spending a rotated refresh token again would have revoked it): both
  // tabs use the server again with the tokens they share, with no 401 and no refresh.
  await test.step('the shared tokens are still valid', async () => {
    const startedAt = Date.now();
    for (const tab of [tabA, tabB]) await tab.getByTestId('tab-servers').click();
    await refreshToolsTogether([tabA, tabB]);
    for (const times of Object.values(traffic.unauthorizedAt)) {
      expect(times.filter((time) => time >= startedAt)).toEqual([]);
    }
    expect(await tokenRequests(request, clientId)).toEqual({
      authorization_code: 1,
      refresh_token: 2,
    });
  });

  expect(tabBErrors, 'console errors of tab B').toEqual([]);
});
