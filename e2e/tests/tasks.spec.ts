import {
  countToolCalls,
  expect,
  expectIdle,
  expectServerConnected,
  interruptOf,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

/*
 * MCP tasks in the playground (demo server, 2026-07-28 tasks extension): the card shows the
 * task's status while it runs, a question the task asks is the usual form, and a task outlives
 * a reload of the page — the reloaded page resumes polling it, the tool is not called again.
 */

/** A lease short enough that a reloaded page takes the run over within seconds. */
const leaseMs = 2_000;

test('a task survives a reload: the reloaded page polls it again and shows its result', async ({
  page,
}) => {
  const calls = countToolCalls(page, 'generate_report');
  await page.goto(new URL(`/?leaseMs=${leaseMs}`, playgroundUrls().url).href);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expectServerConnected(page, 'demo');

  // 8 steps of 500 ms: the task is still working when the page reloads.
  await sendMessage(page, 'write a report on tides');
  const card = toolCard(page, 'demo_generate_report');
  const progress = card.getByTestId('tool-call-progress');
  await expect(progress).toContainText(/Step \d of 8: writing about tides/);
  await expect(progress.locator('[data-task-status]')).toHaveText('Task working');
  await page.reload();

  // The reloaded page takes the run over once the closed page's lease ran out, follows the
  // same task to its end, and the model answers with its result.
  const resumed = toolCard(page, 'demo_generate_report');
  await expect(resumed).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
  await expect(resumed.getByTestId('tool-call-result')).toHaveText(
    'Report on tides: 8 sections written.',
  );
  await expectIdle(page);
  await expect(page.getByTestId('chat-error')).toHaveCount(0);
  expect(calls(), 'the task is not started again').toBe(1);
});

test('a task that asks mid-way shows the usual form; the answer completes it', async ({ page }) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'deploy the api');

  const form = interruptOf(page, 'form');
  await expect(form).toContainText('Deploy api to production now?');
  await form.getByLabel('Deploy now').check();
  await form.getByRole('button', { name: 'Accept' }).click();

  const card = toolCard(page, 'demo_approve_deployment');
  await expect(card.getByTestId('tool-call-result')).toHaveText('Deployed api to production.');
  await expectIdle(page);
});
