import {
  cspViolations,
  expect,
  expectIdle,
  expectSumAnswer,
  openPlayground,
  playgroundUrls,
  recordCspViolations,
  sendMessage,
  test,
  usesDevServer,
} from './fixtures.ts';

test.describe('chat with the scripted model and the everything server', () => {
  test('answers "what is 2 plus 3?" through a get-sum tool call', async ({
    page,
    consoleErrors,
  }) => {
    await recordCspViolations(page);
    await openPlayground(page);
    await expect(page.getByTestId('model-label')).toHaveText(
      'Scripted model (offline, no real LLM)',
    );
    await expect(page.getByTestId('server-protocol')).toContainText(/Protocol \d{4}-\d{2}-\d{2}/);

    await sendMessage(page, 'what is 2 plus 3?');

    await expect(
      page.locator('[data-testid="message"][data-role="user"]').getByTestId('message-text'),
    ).toHaveText('what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    await expect(page.getByTestId('chat-input')).toHaveValue('');
    await expect(page.getByRole('alert')).toHaveCount(0);
    expect(consoleErrors).toEqual([]);
    // The built page runs under a CSP without 'unsafe-eval' (zod's JIT probe is turned off).
    expect(await cspViolations(page)).toEqual([]);
  });

  test('the built page is served with a strict Content-Security-Policy', async ({ page }) => {
    test.skip(usesDevServer, 'The Vite dev server injects inline scripts; it sends no CSP.');
    const response = await page.request.get(playgroundUrls().url);
    expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
  });

  test('renders tool output and model text as text, never as HTML', async ({
    page,
    consoleErrors,
  }) => {
    await openPlayground(page);
    const markup = '<img src="x" onerror="window.__injected = true"><b>bold</b>';

    await sendMessage(page, `echo ${markup}`);

    const card = page.getByTestId('tool-call').filter({ hasText: 'echo' });
    await expect(card.getByTestId('tool-call-name')).toHaveText('echo');
    await expect(card.getByTestId('tool-call-result')).toHaveText(`Echo: ${markup}`);
    await expect(
      page.locator('[data-testid="message"][data-role="assistant"]').getByTestId('message-text'),
    ).toContainText(`The tool returned: Echo: ${markup}`);
    await expectIdle(page);
    await expect(page.getByTestId('message-list').locator('b, img')).toHaveCount(0);
    expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBe(
      undefined,
    );
    expect(consoleErrors).toEqual([]);
  });

  test('Stop ends a streaming run; Send is disabled meanwhile', async ({ page }) => {
    await openPlayground(page);
    // Hold the model's answer so the run stays in flight until Stop is clicked.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const modelRoute = `${playgroundUrls().modelBaseUrl}/chat/completions`;
    await page.route(modelRoute, async (route) => {
      if (route.request().method() === 'POST') await held;
      await route.continue().catch(() => undefined);
    });

    await sendMessage(page, 'what is 2 plus 3?');
    await expect(page.getByTestId('stop-button')).toBeVisible();
    await page.getByTestId('chat-input').fill('a second question');
    await expect(page.getByTestId('send-button')).toBeDisabled();

    await page.getByTestId('stop-button').click();
    await expectIdle(page);
    release();
    await page.unroute(modelRoute);
    await expect(page.getByTestId('chat-error')).toHaveCount(0);

    // The chat goes on after a stop.
    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
  });
});
