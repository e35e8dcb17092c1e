import {
  assistantTexts,
  expect,
  expectIdle,
  expectSumAnswer,
  openPlayground,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

test('a thread survives a reload; threads can be renamed, opened, deleted and started', async ({
  page,
}) => {
  await openPlayground(page, ['everything']);
  await sendMessage(page, 'what is 2 plus 3?');
  await expectSumAnswer(page);
  await expectIdle(page);
  const threads = page.getByTestId('thread-item');
  await expect(threads).toHaveCount(1);
  await expect(threads.first()).toHaveAttribute('data-open', 'true');
  await expect(threads.first().getByTestId('thread-title')).toHaveText('what is 2 plus 3?');

  // Reload: the open thread comes back from IndexedDB, messages and tool card included.
  await page.reload();
  await expectSumAnswer(page);
  await expect(threads).toHaveCount(1);
  await expect(threads.first()).toHaveAttribute('data-open', 'true');

  // Rename (kept across a reload).
  await threads.first().getByTestId('thread-rename').click();
  await page.getByTestId('thread-title-input').fill('Sums');
  await page.getByTestId('thread-rename-save').click();
  await expect(threads.first().getByTestId('thread-title')).toHaveText('Sums');

  // A new thread starts empty; its first message names it.
  await page.getByTestId('new-thread').click();
  await expect(page.getByTestId('message-list')).toHaveCount(0);
  await sendMessage(page, 'echo second thread');
  await expect(assistantTexts(page)).toHaveText('The tool returned: Echo: second thread');
  await expectIdle(page);
  await expect(threads).toHaveCount(2);
  await expect(threads.first().getByTestId('thread-title')).toHaveText('echo second thread');

  // Open the first one again.
  await threads.filter({ hasText: 'Sums' }).getByTestId('thread-open').click();
  await expectSumAnswer(page);
  await expect(threads.filter({ hasText: 'Sums' })).toHaveAttribute('data-open', 'true');

  await page.reload();
  await expect(threads.filter({ hasText: 'Sums' })).toHaveAttribute('data-open', 'true');
  await expectSumAnswer(page);

  // Delete the other one (two steps); the open thread stays.
  const other = threads.filter({ hasText: 'echo second thread' });
  // A thread's actions show on hover (or keyboard focus) unless it is the open one.
  await other.hover();
  await other.getByTestId('thread-delete').click();
  await other.getByTestId('thread-delete-confirm').click();
  await expect(threads).toHaveCount(1);
  await expect(threads.first().getByTestId('thread-title')).toHaveText('Sums');

  // Deleting the open thread leaves an empty new chat.
  await threads.first().getByTestId('thread-delete').click();
  await threads.first().getByTestId('thread-delete-confirm').click();
  await expect(threads).toHaveCount(0);
  await expect(page.getByTestId('message-list')).toHaveCount(0);
});

test('Stop during a tool call leaves a consistent thread', async ({ page }) => {
  await openPlayground(page, ['demo', 'everything']);
  await sendMessage(page, 'count to 20 slowly');
  const card = toolCard(page, 'demo_slow_count');
  await expect(card.getByTestId('tool-call-progress')).toBeVisible();
  // The new thread is listed from its first message, while its first run still goes.
  await expect(page.getByTestId('thread-item').getByTestId('thread-title')).toHaveText([
    'count to 20 slowly',
  ]);
  await expect(page.getByTestId('stop-button')).toBeVisible();

  await page.getByTestId('stop-button').click();
  await expectIdle(page);
  await expect(card).toHaveAttribute('data-state', 'error');
  // Stopped is not a failure: the badge says so, not "Error".
  await expect(card.getByTestId('tool-call-state')).toHaveText('Stopped');
  await expect(card).toContainText('on demo');
  await expect(card.getByTestId('tool-error')).toBeVisible();
  await expect(page.locator('[data-testid="tool-call"][data-state="running"]')).toHaveCount(0);

  // After a reload the stored thread has the same call, settled (every call has one output).
  await page.reload();
  await expect(toolCard(page, 'demo_slow_count')).toHaveAttribute('data-state', 'error');
  await expect(toolCard(page, 'demo_slow_count').getByTestId('tool-call-state')).toHaveText(
    'Stopped',
  );
  await expect(toolCard(page, 'demo_slow_count')).toContainText('on demo');
  await expect(toolCard(page, 'demo_slow_count').getByTestId('tool-error')).toBeVisible();
  await expect(page.locator('[data-testid="tool-call"][data-state="running"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="tool-call"][data-state="waiting"]')).toHaveCount(0);

  // And the conversation goes on.
  await sendMessage(page, 'what is 2 plus 3?');
  await expectSumAnswer(page);
  await expectIdle(page);
});
