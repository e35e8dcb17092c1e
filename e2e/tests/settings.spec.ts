import type { Page } from '@playwright/test';
import {
  expect,
  expectIdle,
  expectSumAnswer,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  unusedPort,
} from './fixtures.ts';

const scriptedLabel = 'Scripted model (offline, no real LLM)';

type Provider = 'OpenAI (Responses API)' | 'Anthropic' | 'OpenAI-compatible';

async function chooseProvider(
  page: Page,
  provider: Provider,
  fields: { baseURL: string; apiKey: string; model: string },
): Promise<void> {
  await page.getByTestId('settings-toggle').click();
  await page.getByLabel(provider, { exact: true }).check();
  await expect(page.getByTestId('settings-api-key')).toHaveAttribute('type', 'password');
  await page.getByTestId('settings-base-url').fill(fields.baseURL);
  await page.getByTestId('settings-api-key').fill(fields.apiKey);
  await page.getByTestId('settings-model').fill(fields.model);
  await expect(page.getByTestId('settings-key-note')).toHaveText(
    `Your key stays in this browser (localStorage) and is sent only to ${new URL(fields.baseURL).host}.`,
  );
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-form')).toHaveCount(0);
}

async function chooseScripted(page: Page): Promise<void> {
  await page.getByTestId('settings-toggle').click();
  await page.getByLabel(scriptedLabel).check();
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);
}

// The scripted model server speaks all three wire formats, so it stands in for each provider.
const providers: { provider: Provider; label: string; baseURL: () => string }[] = [
  {
    provider: 'OpenAI (Responses API)',
    label: 'OpenAI (Responses): e2e-model at',
    baseURL: () => playgroundUrls().modelBaseUrl,
  },
  {
    provider: 'Anthropic',
    label: 'Anthropic: e2e-model at',
    baseURL: () => playgroundUrls().modelServerUrl,
  },
  {
    provider: 'OpenAI-compatible',
    label: 'OpenAI-compatible: e2e-model at',
    baseURL: () => playgroundUrls().modelBaseUrl,
  },
];

for (const { provider, label, baseURL } of providers) {
  test(`${provider}: the key goes only to its base URL, and the choice persists`, async ({
    page,
  }) => {
    const apiKey = `sk-e2e-${provider.length}-not-a-real-key`;
    const keyed: string[] = [];
    page.on('request', async (request) => {
      const headers = await request.allHeaders().catch(() => ({}) as Record<string, string>);
      if (Object.values(headers).some((value) => value.includes(apiKey))) keyed.push(request.url());
    });
    await openPlayground(page, ['everything']);
    await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);

    await chooseProvider(page, provider, { baseURL: baseURL(), apiKey, model: 'e2e-model' });
    const fullLabel = `${label} ${new URL(baseURL()).host}`;
    await expect(page.getByTestId('model-label')).toHaveText(fullLabel);
    await expect(page.locator('body')).not.toContainText(apiKey);

    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    expect(keyed.length).toBeGreaterThan(0);
    for (const url of keyed) expect(url.startsWith(`${baseURL()}/`)).toBe(true);

    await page.reload();
    await expect(page.getByTestId('model-label')).toHaveText(fullLabel);
    await page.getByTestId('settings-toggle').click();
    await expect(page.getByLabel(provider, { exact: true })).toBeChecked();
    await expect(page.getByTestId('settings-base-url')).toHaveValue(baseURL());
    await expect(page.getByTestId('settings-api-key')).toHaveValue(apiKey);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await chooseScripted(page);
    await page.reload();
    await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);
  });
}

test.describe('a failing model', () => {
  test.use({ expectedConsoleErrors: /^Failed to load resource: net::ERR_CONNECTION_REFUSED$/ });

  test('shows the error, and the page keeps working', async ({ page }) => {
    await openPlayground(page, ['everything']);
    const refusedBaseUrl = `http://127.0.0.1:${await unusedPort()}/v1`;
    await chooseProvider(page, 'OpenAI-compatible', {
      baseURL: refusedBaseUrl,
      apiKey: '',
      model: 'nowhere',
    });

    await sendMessage(page, 'what is 2 plus 3?');
    const error = page.getByTestId('chat-error');
    await expect(error).toHaveAttribute('role', 'alert');
    await expect(error).toContainText('model_error', { timeout: 20_000 });
    await expectIdle(page);

    await chooseScripted(page);
    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
  });
});
