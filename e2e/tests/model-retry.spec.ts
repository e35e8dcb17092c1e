import {
  assistantTexts,
  expect,
  expectIdle,
  openPlayground,
  sendMessage,
  test,
} from './fixtures.ts';

test.describe('a rate-limited model', () => {
  // The browser logs the scripted HTTP 429 the agent then retries.
  test.use({
    expectedConsoleErrors: /^Failed to load resource: the server responded with a status of 429/,
  });

  test('shows "retrying in" in the thinking indicator, then the answer of the retry', async ({
    page,
  }) => {
    await openPlayground(page, []);
    // A phrase of its own per test run: the scripted server answers 429 to the first request of
    // each exact body only.
    await sendMessage(page, `simulate a rate limit (${crypto.randomUUID()})`);

    const notice = page.getByTestId('chat-model-retry');
    await expect(notice).toBeVisible();
    await expect(notice).toHaveAttribute('role', 'status');
    await expect(notice).toContainText(/Rate limited — retrying (in \d s|now) \(attempt 2 of 3\)/);

    await expect(assistantTexts(page).last()).toHaveText(
      'This answer got through after a rate limit (HTTP 429, Retry-After 2 s).',
    );
    await expect(notice).toHaveCount(0);
    await expectIdle(page);
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
  });
});
