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
import type { Page } from '@playwright/test';

const scriptedLabel = 'Scripted model (offline, no real LLM)';

async function chooseOpenAICompatible(
  page: Page,
  settings: { baseURL: string; apiKey: string; model: string },
): Promise<void> {
  await page.getByTestId('settings-toggle').click();
  await page.getByLabel('OpenAI-compatible').check();
  await expect(page.getByTestId('settings-key-note')).toHaveText(
    'Your key stays in this browser (localStorage) and is sent only to the base URL you enter.',
  );
  await expect(page.getByTestId('settings-api-key')).toHaveAttribute('type', 'password');
  await page.getByTestId('settings-base-url').fill(settings.baseURL);
  await page.getByTestId('settings-api-key').fill(settings.apiKey);
  await page.getByTestId('settings-model').fill(settings.model);
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-form')).toHaveCount(0);
}

async function chooseScripted(page: Page): Promise<void> {
  await page.getByTestId('settings-toggle').click();
  await page.getByLabel(scriptedLabel).check();
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);
}

test('settings persist across a reload, change the label and rebuild the agent', async ({
  page,
}) => {
  const { modelBaseUrl } = playgroundUrls();
  const apiKey = 'sk-e2e-not-a-real-key';
  const authorizedRequests: string[] = [];
  page.on('request', (request) => {
    if (request.headers()['authorization']?.includes(apiKey))
      authorizedRequests.push(request.url());
  });

  await openPlayground(page);
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);

  // The scripted model server speaks the OpenAI wire format, so it stands in for a real endpoint.
  await chooseOpenAICompatible(page, { baseURL: modelBaseUrl, apiKey, model: 'e2e-model' });
  const label = `OpenAI-compatible: e2e-model at ${new URL(modelBaseUrl).host}`;
  await expect(page.getByTestId('model-label')).toHaveText(label);
  await expect(page.locator('body')).not.toContainText(apiKey);

  // The rebuilt agent uses the new model, and the key goes only to the base URL entered.
  await sendMessage(page, 'what is 2 plus 3?');
  await expectSumAnswer(page);
  await expectIdle(page);
  expect(authorizedRequests.length).toBeGreaterThan(0);
  for (const url of authorizedRequests) expect(url.startsWith(`${modelBaseUrl}/`)).toBe(true);

  await page.reload();
  await expect(page.getByTestId('model-label')).toHaveText(label);
  await page.getByTestId('settings-toggle').click();
  await expect(page.getByLabel('OpenAI-compatible')).toBeChecked();
  await expect(page.getByTestId('settings-base-url')).toHaveValue(modelBaseUrl);
  await expect(page.getByTestId('settings-api-key')).toHaveValue(apiKey);
  await expect(page.getByTestId('settings-model')).toHaveValue('e2e-model');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await chooseScripted(page);
  await page.reload();
  await expect(page.getByTestId('model-label')).toHaveText(scriptedLabel);
});

test('a failing model shows the error, and the page keeps working', async ({ page }) => {
  await openPlayground(page);
  const refusedBaseUrl = `http://127.0.0.1:${await unusedPort()}/v1`;
  await chooseOpenAICompatible(page, { baseURL: refusedBaseUrl, apiKey: '', model: 'nowhere' });

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
