import type { Locator, Page } from '@playwright/test';
import {
  defaultModelScript,
  startScriptedModelServer,
  type ModelScript,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import {
  addServer,
  assistantTexts,
  expect,
  expectIdle,
  expectServerConnected,
  openPlayground,
  playgroundUrls,
  sendMessage,
  serverCard,
  showTools,
  test,
  toolCard,
  usesDevServer,
} from './fixtures.ts';

/** The preset's name in the Servers panel ("Demo (OAuth)"). */
const server = 'demo-oauth';
/** The title of the test authorization server's consent page. */
const consentTitle = 'Sign in to Switchboard demo';

// Until the user signs in, the protected endpoint answers 401 (and a call that needs more scope
// 403): the browser logs each as a failed resource load. Nothing else may reach the console.
test.use({
  expectedConsoleErrors:
    /^Failed to load resource: the server responded with a status of (401 \(Unauthorized\)|403 \(Forbidden\))$/,
});

/** Adds the "Demo (OAuth)" preset and waits until it asks for a sign-in. */
async function addOAuthDemo(page: Page): Promise<Locator> {
  await page.getByTestId('add-oauth-demo').click();
  const card = serverCard(page, server);
  await expect(card).toHaveAttribute('data-status', 'needs-auth');
  await expect(card.getByTestId('server-status')).toHaveText('Sign-in needed');
  await expect(card.getByTestId('server-needs-auth')).toContainText(
    'This server needs you to sign in',
  );
  await expect(card.getByTestId('server-connect')).toHaveText('Connect');
  await expect(page.getByTestId('add-oauth-demo')).toHaveCount(0);
  return card;
}

/**
 * Checks the consent page of the test authorization server (in a popup or in the page itself),
 * and clicks Allow. Returns the authorization server's host.
 */
async function allowOnConsentPage(consent: Page, scope = 'mcp:tools'): Promise<string> {
  await expect(consent).toHaveTitle(consentTitle);
  const host = new URL(consent.url()).host;
  await expect(consent.getByRole('textbox')).toHaveValue('demo-user');
  // The client registered itself with the playground's name, and asks for the server's scope.
  await expect(consent.locator('body')).toContainText('Switchboard playground');
  await expect(consent.locator('body')).toContainText(scope);
  await consent.getByRole('button', { name: 'Allow' }).click();
  return host;
}

/** Waits until the popup closed itself (it may already have). */
async function expectClosed(popup: Page): Promise<void> {
  await expect.poll(() => popup.isClosed()).toBe(true);
}

/** Expects the card to show the signed-in account. */
async function expectSignedIn(card: Locator, issuerHost: string, scope: RegExp): Promise<void> {
  const account = card.getByTestId('server-account');
  await expect(account).toHaveAttribute('data-signed-in', 'true');
  await expect(account).toContainText('Signed in');
  await expect(card.getByTestId('server-account-issuer')).toHaveText(issuerHost);
  await expect(card.getByTestId('server-account-scope')).toHaveText(scope);
  await expect(card.getByTestId('server-sign-out')).toBeVisible();
}

test('Connect signs in through a popup; tools work; Sign out asks again', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['everything']);
  const card = await addOAuthDemo(page);
  await expect(card.getByTestId('tool-count')).toHaveCount(0);
  // The chat offers the same sign-in instead of failing.
  const banner = page.locator(`[data-testid="auth-banner"][data-server="${server}"]`);
  await expect(banner).toContainText(`${server} needs you to sign in`);

  const popupOpened = context.waitForEvent('page');
  await card.getByTestId('server-connect').click();
  const popup = await popupOpened;
  const issuerHost = await allowOnConsentPage(popup);
  // The callback page hands the answer back and closes the popup.
  await expectClosed(popup);

  await expectServerConnected(page, server);
  await expectSignedIn(card, issuerHost, /^mcp:tools$/);
  await expect(card.getByTestId('server-needs-auth')).toHaveCount(0);
  await expect(banner).toHaveCount(0);
  // No token anywhere on the page (the account shows issuer and scope only).
  await expect(page.locator('body')).not.toContainText(/Bearer|access_token|refresh_token/);

  // The tools work: run one in the Tool runner.
  const tools = await showTools(page, server);
  await tools
    .locator('[data-testid="tool-item"][data-tool-name="get_weather"]')
    .getByTestId('tool-run')
    .click();
  await expect(page.getByTestId('runner-tool')).toHaveValue('get_weather');
  await page.getByTestId('tool-runner').locator('input[id="runner_city"]').fill('Bergen');
  await page.getByTestId('runner-run').click();
  await expect(
    page.getByTestId('runner-outcome').getByTestId('tool-call-structured'),
  ).toContainText('"city": "Bergen"');
  await page.getByTestId('tab-servers').click();

  // A reload stays signed in (tokens in IndexedDB).
  await page.reload();
  await expectServerConnected(page, server);
  await expectSignedIn(card, issuerHost, /^mcp:tools$/);

  // Sign out: the tokens are forgotten and the server asks again.
  await card.getByTestId('server-sign-out').click();
  await expect(card).toHaveAttribute('data-status', 'needs-auth');
  await expect(card.getByTestId('server-connect')).toBeVisible();
  await expect(card.getByTestId('server-account')).toHaveCount(0);
  await expect(banner).toBeVisible();
});

test('closing the popup shows why, and Connect stays offered', async ({ page, context }) => {
  await openPlayground(page, ['everything']);
  const card = await addOAuthDemo(page);

  const popupOpened = context.waitForEvent('page');
  await card.getByTestId('server-connect').click();
  const popup = await popupOpened;
  await expect(popup).toHaveTitle(consentTitle);
  await popup.close();

  await expect(card.getByTestId('server-auth-failure')).toHaveText(
    'The sign-in window was closed before you finished. Connect to try again.',
  );
  await expect(card).toHaveAttribute('data-status', 'needs-auth');
  await expect(card.getByTestId('server-connect')).toBeEnabled();

  // Deny: the authorization server's refusal is shown.
  const secondPopup = context.waitForEvent('page');
  await card.getByTestId('server-connect').click();
  const denied = await secondPopup;
  await expect(denied).toHaveTitle(consentTitle);
  await denied.getByRole('button', { name: 'Deny' }).click();
  await expect(card.getByTestId('server-auth-failure')).toContainText(
    'Sign-in was refused (access_denied).',
  );
  await expect(card).toHaveAttribute('data-status', 'needs-auth');
});

test('with popups blocked, the whole page goes to the consent page and comes back signed in', async ({
  page,
}) => {
  // A popup blocker: window.open opens nothing.
  await page.addInitScript(() => {
    window.open = () => null;
  });
  await openPlayground(page, ['everything']);
  const card = await addOAuthDemo(page);

  await card.getByTestId('server-connect').click();
  // The page itself is now the consent page.
  await page.waitForURL((url) => url.pathname === '/authorize');
  const issuerHost = await allowOnConsentPage(page);

  // Back through the callback page to the playground, signed in.
  await page.waitForURL((url) => url.pathname === '/');
  await expectServerConnected(page, server);
  await expectSignedIn(card, issuerHost, /^mcp:tools$/);
  // The callback URL (with the code) is not left in the history.
  expect(page.url()).not.toContain('code=');
});

test('any server can sign in with OAuth: from the form, or when it answers 401', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['everything']);
  const protectedUrl = `${playgroundUrls().demoUrl}/protected/mcp`;

  // Added without OAuth: the server's 401 fails the connection, and the card offers OAuth.
  await addServer(page, { name: 'plain', url: protectedUrl, toolPrefix: 'plain_' });
  const plain = serverCard(page, 'plain');
  await expect(plain.getByTestId('server-offer-oauth')).toContainText('asks you to sign in');
  await plain.getByTestId('server-use-oauth').click();
  await expect(plain).toHaveAttribute('data-status', 'needs-auth');
  await expect(plain.getByTestId('server-connect')).toBeVisible();

  // Added with "Sign in with OAuth": Connect at once.
  await addServer(page, { name: 'mine', url: protectedUrl, toolPrefix: 'mine_', oauth: true });
  const mine = serverCard(page, 'mine');
  await expect(mine).toHaveAttribute('data-status', 'needs-auth');
  const popupOpened = context.waitForEvent('page');
  await mine.getByTestId('server-connect').click();
  const popup = await popupOpened;
  const issuerHost = await allowOnConsentPage(popup);
  await expectClosed(popup);
  await expectServerConnected(page, 'mine');
  await expectSignedIn(mine, issuerHost, /^mcp:tools$/);

  // The setting is kept with the server list.
  await page.reload();
  await expectServerConnected(page, 'mine');
  await expect(plain).toHaveAttribute('data-status', /^(needs-auth|connected)$/);
});

test('the Tool runner offers a sign-in when a call needs more scope (step-up)', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['everything']);
  const card = await addOAuthDemo(page);
  const popupOpened = context.waitForEvent('page');
  await card.getByTestId('server-connect').click();
  const popup = await popupOpened;
  const issuerHost = await allowOnConsentPage(popup);
  await expectClosed(popup);
  await expectServerConnected(page, server);

  const tools = await showTools(page, server);
  // The last of 169 tools: filter the list.
  await tools.getByLabel(`Filter the tools of ${server}`).fill('reset');
  await tools
    .locator('[data-testid="tool-item"][data-tool-name="reset_demo_data"]')
    .getByTestId('tool-run')
    .click();
  await expect(page.getByTestId('runner-tool')).toHaveValue('reset_demo_data');
  await page.getByTestId('runner-run').click();
  const outcome = page.getByTestId('runner-outcome');
  await expect(outcome.getByTestId('tool-error').locator('.sb-error-sentence')).toHaveText(
    '"demo-oauth" needs you to sign in. Connect, then try again.',
  );
  const stepUpOpened = context.waitForEvent('page');
  await outcome.getByTestId('runner-connect').click();
  const stepUp = await stepUpOpened;
  await allowOnConsentPage(stepUp, 'mcp:admin');
  await expectClosed(stepUp);

  await expect(outcome.getByTestId('tool-call-result')).toHaveText(
    'Demo data reset (demo: nothing was really reset).',
  );
  await expect(outcome.getByTestId('runner-needs-auth')).toHaveCount(0);
  await page.getByTestId('tab-servers').click();
  await expectSignedIn(card, issuerHost, /mcp:admin/);
});

test('the callback page is built, served under the CSP, and has no inline script', async ({
  page,
}) => {
  // Skipped only with SWITCHBOARD_E2E_DEV_SERVER=1 (never in CI): the CSP and the built callback
  // page are properties of `vite build` + `vite preview`.
  test.skip(usesDevServer, 'The Vite dev server injects inline scripts; it sends no CSP.');
  const response = await page.request.get(
    new URL('/oauth-callback.html', playgroundUrls().url).href,
  );
  expect(response.status()).toBe(200);
  expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
  const html = await response.text();
  expect(html).toMatch(
    /<script type="module" crossorigin src="\/assets\/oauth-callback-[^"]+\.js">/,
  );
  // Every script of the page has a src.
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html).toContain('<meta name="referrer" content="no-referrer" />');
});

test.describe('step-up authorization in the chat', () => {
  let model: ScriptedModelServer | undefined;
  test.afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  test('a call that needs more scope pauses for a sign-in, then succeeds', async ({
    page,
    context,
  }) => {
    // A model that calls reset_demo_data (the default script has no phrase for it), and
    // answers tool results as the default script does.
    const script: ModelScript = (request) => {
      if (request.messages.at(-1)?.role === 'tool') return defaultModelScript(request);
      const reset = request.tools?.find((tool) => tool.function.name.endsWith('reset_demo_data'));
      return reset === undefined
        ? { text: 'No reset tool is offered.' }
        : { toolCalls: [{ name: reset.function.name, arguments: {} }] };
    };
    model = await startScriptedModelServer({ script });

    await openPlayground(page, ['everything']);
    await page.getByTestId('settings-toggle').click();
    await page.getByLabel('OpenAI-compatible', { exact: true }).check();
    await page.getByTestId('settings-base-url').fill(`${model.url}/v1`);
    await page.getByTestId('settings-model').fill('step-up-model');
    await page.getByTestId('settings-save').click();
    await expect(page.getByTestId('settings-form')).toHaveCount(0);

    // Signed in with the everyday scope only.
    const card = await addOAuthDemo(page);
    const popupOpened = context.waitForEvent('page');
    await card.getByTestId('server-connect').click();
    const popup = await popupOpened;
    const issuerHost = await allowOnConsentPage(popup);
    await expectClosed(popup);
    await expectServerConnected(page, server);
    await expectSignedIn(card, issuerHost, /^mcp:tools$/);

    await sendMessage(page, 'reset the demo data');
    // reset_demo_data is declared destructive: approve it first.
    const approval = page.locator('[data-testid="interrupt"][data-mode="approval"]');
    await expect(approval).toBeVisible();
    await approval.getByRole('button', { name: 'Approve' }).click();

    // The server refuses it for want of mcp:admin: the run waits for a sign-in.
    const authorization = page.locator('[data-testid="interrupt"][data-mode="authorization"]');
    await expect(authorization).toContainText('needs you to sign in');
    // One call needs more scope; the server itself stays connected, with no banner in the chat.
    await expect(card).toHaveAttribute('data-status', 'connected');
    await expect(page.getByTestId('auth-banner')).toHaveCount(0);
    const stepUpOpened = context.waitForEvent('page');
    await authorization.getByRole('button', { name: 'Connect' }).click();
    const stepUp = await stepUpOpened;
    await allowOnConsentPage(stepUp, 'mcp:admin');
    await expectClosed(stepUp);

    // The call is made again, with the new token, and succeeds.
    const call = toolCard(page, 'secure_reset_demo_data').last();
    await expect(call).toHaveAttribute('data-state', 'done');
    await expect(call.getByTestId('tool-call-result')).toContainText('Demo data reset');
    await expect(assistantTexts(page).last()).toContainText('The tool returned: Demo data reset');
    await expectIdle(page);
    await expect(authorization).toHaveCount(0);
    await expect(card.getByTestId('server-account-scope')).toContainText('mcp:admin');
  });
});
