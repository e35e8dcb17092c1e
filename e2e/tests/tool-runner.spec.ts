import type { Page } from '@playwright/test';
import { expect, interruptOf, openPlayground, showTools, test } from './fixtures.ts';

/** Opens a tool in the runner from its row in the Servers panel. */
async function openInRunner(page: Page, server: string, tool: string): Promise<void> {
  const card = await showTools(page, server);
  const row = card.locator(`[data-testid="tool-item"][data-tool-name="${tool}"]`);
  if ((await row.count()) === 0) await card.getByRole('searchbox').fill(tool);
  await row.getByTestId('tool-run').click();
  await expect(page.getByTestId('tool-runner')).toBeVisible();
  await expect(page.getByTestId('runner-tool')).toHaveValue(tool);
}

test('runs a tool directly from a form generated from its input schema', async ({ page }) => {
  await openPlayground(page, ['everything', 'demo']);
  await page.getByTestId('tab-runner').click();
  await page.getByTestId('runner-server').selectOption({ label: 'everything' });
  await page.getByTestId('runner-tool').selectOption('get-sum');
  const runner = page.getByTestId('tool-runner');
  await runner.locator('input[id="runner_a"]').fill('2');
  await runner.locator('input[id="runner_b"]').fill('40');
  await page.getByTestId('runner-run').click();

  const outcome = page.getByTestId('runner-outcome');
  await expect(outcome.getByTestId('tool-call-result')).toHaveText('The sum of 2 and 40 is 42.');
  await expect(outcome).toContainText('Called with { "a": 2, "b": 40 }');

  // Structured content, from the demo server's get_weather (opened from the Servers panel).
  await page.getByTestId('tab-servers').click();
  await openInRunner(page, 'demo', 'get_weather');
  await runner.locator('input[id="runner_city"]').fill('Oslo');
  await page.getByTestId('runner-run').click();
  await expect(outcome.getByTestId('tool-call-structured')).toContainText('"city": "Oslo"');
  // No chat run happened.
  await expect(page.getByTestId('message-list')).toHaveCount(0);
});

test('the runner shows progress and answers a 2026-07-28 form (MRTR)', async ({ page }) => {
  await openPlayground(page, ['demo']);
  await openInRunner(page, 'demo', 'slow_count');
  const runner = page.getByTestId('tool-runner');
  await runner.locator('input[id="runner_count"]').fill('6');
  await runner.locator('input[id="runner_delayMs"]').fill('250');
  await page.getByTestId('runner-run').click();
  const bar = page.getByTestId('runner-progress').locator('progress');
  await expect(bar).toHaveAttribute('max', '6');
  await expect(page.getByTestId('runner-outcome').getByTestId('tool-call-result')).toHaveText(
    'Counted to 6.',
  );

  await page.getByTestId('tab-servers').click();
  await openInRunner(page, 'demo', 'book_table');
  await page.getByTestId('runner-run').click();
  const form = interruptOf(page, 'form');
  await expect(form).toContainText("Book a table at Luigi's");
  await form.locator('input[id$="_name"]').fill('Grace');
  await form.locator('input[id$="_date"]').fill('2026-10-02');
  // No focus juggling: the click goes straight from the field just typed in (issue 20, item 1).
  await form.locator('input[id$="_confirm"]').check();
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('runner-outcome').getByTestId('tool-call-result')).toHaveText(
    "Booked a table at Luigi's for 2 guests on 2026-10-02 (indoor) under Grace.",
  );
});

test('the runner answers a form pushed by a 2025-era server', async ({ page }) => {
  await openPlayground(page, ['everything']);
  await openInRunner(page, 'everything', 'trigger-elicitation-request');
  await page.getByTestId('runner-run').click();
  const form = interruptOf(page, 'form');
  await form.locator('input[id$="_name"]').fill('Linus');
  await form.getByRole('button', { name: 'Accept' }).click();
  const result = page.getByTestId('runner-outcome').getByTestId('tool-call-result');
  await expect(result).toContainText('- Name: Linus');
});

test("a tool's Markdown description is formatting, and its error one sentence", async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await openInRunner(page, 'demo', 'fail');
  const description = page.getByTestId('tool-runner').locator('.runner__description');
  await expect(description.locator('code')).toHaveText('isError: true');
  await expect(description).toHaveText('Always returns a tool error (isError: true).');

  await page.getByTestId('runner-run').click();
  const failure = page.getByTestId('runner-outcome').getByTestId('tool-error');
  await expect(failure.locator('.sb-error-sentence')).toHaveText(
    'The tool failed: This tool always fails (demo).',
  );
  // A record, not news: no alert role inside a result.
  await expect(failure).not.toHaveAttribute('role', 'alert');
});
