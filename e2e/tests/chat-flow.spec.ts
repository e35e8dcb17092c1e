import {
  assistantTexts,
  cspViolations,
  expect,
  expectIdle,
  expectSumAnswer,
  openPlayground,
  playgroundUrls,
  recordCspViolations,
  sendMessage,
  test,
  toolCard,
  usesDevServer,
} from './fixtures.ts';

test.describe('chat with the scripted model', () => {
  test('answers "what is 2 plus 3?" through a get-sum tool call, streamed', async ({ page }) => {
    await recordCspViolations(page);
    await openPlayground(page);
    await expect(page.getByTestId('model-label')).toHaveText(
      'Scripted model (offline, no real LLM)',
    );

    // Count the streamed text deltas the page receives from the model server.
    const modelResponses: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/chat/completions')) modelResponses.push(response.url());
    });
    await page.getByRole('button', { name: /^what is 2 plus 3\?/ }).click();

    await expect(
      page.locator('[data-testid="message"][data-role="user"]').getByTestId('message-text'),
    ).toHaveText('what is 2 plus 3?');
    await expect(toolCard(page, 'get-sum')).toContainText('on everything');
    await expectSumAnswer(page);
    await expectIdle(page);
    // One model call for the tool call, one for the answer (streamed as server-sent events).
    expect(modelResponses).toHaveLength(2);
    await expect(page.getByTestId('chat-input')).toHaveValue('');
    await expect(page.getByRole('alert')).toHaveCount(0);
    // The built page runs under its CSP (zod's JIT probe is turned off).
    expect(await cspViolations(page)).toEqual([]);
  });

  test('the built page is served with a Content-Security-Policy', async ({ page }) => {
    // Skipped only with SWITCHBOARD_E2E_DEV_SERVER=1: the CSP is a property of the built page.
    test.skip(usesDevServer, 'The Vite dev server injects inline scripts; it sends no CSP.');
    const response = await page.request.get(playgroundUrls().url);
    const policy = response.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self' 'unsafe-eval'");
    expect(policy).toContain("object-src 'none'");
  });

  test('shows structured content and images from tools', async ({ page }) => {
    await openPlayground(page);

    await sendMessage(page, 'weather in Oslo');
    const weather = toolCard(page, 'demo_get_weather');
    await expect(weather).toHaveAttribute('data-state', 'done');
    await expect(weather.getByTestId('tool-call-structured')).toContainText('"city": "Oslo"');
    await expect(weather.getByTestId('tool-call-structured')).toContainText('temperatureCelsius');
    await expectIdle(page);

    await sendMessage(page, 'show me an image');
    const image = toolCard(page, 'get-tiny-image').getByTestId('tool-call-image');
    await expect(image).toBeVisible();
    await expect(image).toHaveAttribute('src', /^data:image\/png;base64,/);
    expect(
      await image.evaluate((element: HTMLImageElement) => element.naturalWidth),
    ).toBeGreaterThan(0);
    await expectIdle(page);
  });

  test('renders tool output and model text as text, never as HTML', async ({ page }) => {
    await openPlayground(page, ['everything']);
    const markup = '<img src="x" onerror="window.__injected = true"><b>bold</b>';

    await sendMessage(page, `echo ${markup}`);

    const card = toolCard(page, 'echo');
    await expect(card.getByTestId('tool-call-result')).toHaveText(`Echo: ${markup}`);
    await expect(assistantTexts(page)).toContainText(`The tool returned: Echo: ${markup}`);
    await expectIdle(page);
    await expect(page.getByTestId('message-list').locator('b, img')).toHaveCount(0);
    expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBe(
      undefined,
    );
  });

  test('Stop ends a streaming run; Send is disabled meanwhile', async ({ page }) => {
    await openPlayground(page, ['everything']);
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
