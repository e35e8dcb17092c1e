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

test('each provider answers, its key goes only to its base URL, and the choice persists', async ({
  page,
}) => {
  const keyed = new Map<string, string[]>();
  page.on('request', async (request) => {
    const headers = await request.allHeaders().catch(() => ({}) as Record<string, string>);
    for (const value of Object.values(headers)) {
      const key = /sk-e2e-\w+/.exec(value)?.[0];
      if (key !== undefined) keyed.set(key, [...(keyed.get(key) ?? []), request.url()]);
    }
  });
  await openPlayground(page, ['everything']);
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);

  for (const [index, { provider, label, baseURL }] of providers.entries()) {
    const apiKey = `sk-e2e-${index}`;
    await chooseProvider(page, provider, { baseURL: baseURL(), apiKey, model: 'e2e-model' });
    await expect(page.getByTestId('model-label')).toHaveText(`${label} ${new URL(baseURL()).host}`);
    await expect(page.locator('body')).not.toContainText(apiKey);

    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    const urls = keyed.get(apiKey) ?? [];
    expect(urls.length, `requests with the ${provider} key`).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`${baseURL()}/`)).toBe(true);
  }

  // The last choice (OpenAI-compatible) is kept in this browser.
  const last = providers.at(-1);
  if (last === undefined) throw new Error('no providers');
  const lastLabel = `${last.label} ${new URL(last.baseURL()).host}`;
  await page.reload();
  await expect(page.getByTestId('model-label')).toHaveText(lastLabel);
  await page.getByTestId('settings-toggle').click();
  await expect(page.getByLabel(last.provider, { exact: true })).toBeChecked();
  await expect(page.getByTestId('settings-base-url')).toHaveValue(last.baseURL());
  await expect(page.getByTestId('settings-api-key')).toHaveValue(`sk-e2e-${providers.length - 1}`);
  // Each provider keeps its own fields.
  await page.getByLabel('Anthropic', { exact: true }).check();
  await expect(page.getByTestId('settings-base-url')).toHaveValue(playgroundUrls().modelServerUrl);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await chooseScripted(page);
  await page.reload();
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);
});

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
    await expect(error.locator('.sb-error-sentence')).toHaveText(/^The model could not answer/, {
      timeout: 20_000,
    });
    await expect(error.locator('.sb-error-code')).toHaveText('model_error');
    await expectIdle(page);

    await chooseScripted(page);
    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
  });
});
