import {
  assistantTexts,
  countToolCalls,
  expect,
  expectIdle,
  expectSumAnswer,
  interruptOf,
  openPlayground,
  sendMessage,
  serverCard,
  test,
  toolCard,
} from './fixtures.ts';

test.describe('approval', () => {
  test('approve runs the destructive tool once', async ({ page }) => {
    await openPlayground(page, ['demo']);
    const calls = countToolCalls(page, 'delete_file');

    await sendMessage(page, 'delete notes.txt');
    const dialog = interruptOf(page, 'approval');
    await expect(dialog).toContainText('Allow demo_delete_file from demo?');
    await expect(dialog).toContainText('"path": "notes.txt"');
    await expect(dialog.locator('[data-hint="destructive"]')).toHaveText('destructive');
    await expect(toolCard(page, 'demo_delete_file')).toHaveAttribute('data-state', 'waiting');
    await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
    expect(calls()).toBe(0);

    await dialog.getByRole('button', { name: 'Approve' }).click();
    const card = toolCard(page, 'demo_delete_file');
    await expect(card).toHaveAttribute('data-state', 'done');
    await expect(card.getByTestId('tool-call-result')).toHaveText(
      'Deleted notes.txt (demo: nothing was really deleted).',
    );
    await expect(assistantTexts(page).last()).toHaveText(
      'The tool returned: Deleted notes.txt (demo: nothing was really deleted).',
    );
    await expectIdle(page);
    await expect(interruptOf(page, 'approval')).toHaveCount(0);
    expect(calls()).toBe(1);
  });

  test('reject tells the model the call was declined, and nothing runs', async ({ page }) => {
    await openPlayground(page, ['demo']);
    const calls = countToolCalls(page, 'delete_file');

    await sendMessage(page, 'delete notes.txt');
    const dialog = interruptOf(page, 'approval');
    // For a destructive tool, keyboard focus starts on Reject.
    await expect(dialog.getByRole('button', { name: 'Reject' })).toBeFocused();
    await page.keyboard.press('Enter');

    const card = toolCard(page, 'demo_delete_file');
    await expect(card).toHaveAttribute('data-state', 'error');
    await expect(card.getByTestId('tool-call-state')).toHaveText('Declined');
    await expect(card.getByTestId('tool-error').locator('.sb-error-sentence')).toHaveText(
      'You declined this tool call, so it did not run.',
    );
    // What the model read is one click away, under Details.
    await expect(card.getByTestId('tool-error').locator('.sb-error-message')).toHaveText(
      'The user declined this tool call; it was not run.',
    );
    await expect(assistantTexts(page).last()).toHaveText(
      'You declined the demo_delete_file call, so I did not run it.',
    );
    await expectIdle(page);
    expect(calls()).toBe(0);
  });

  test('the "Needs approval" toggle holds a tool that would run at once', async ({ page }) => {
    await openPlayground(page, ['everything']);
    const tool = serverCard(page, 'everything').locator(
      '[data-testid="tool-item"][data-tool-name="get-sum"]',
    );
    await tool.getByTestId('tool-needs-approval').check();
    await expect(tool).toHaveAttribute('data-needs-approval', 'true');

    await sendMessage(page, 'what is 2 plus 3?');
    const dialog = interruptOf(page, 'approval');
    await expect(dialog).toContainText('get-sum');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await expectSumAnswer(page);
    await expectIdle(page);

    // The toggle is kept in this browser.
    await page.reload();
    await expect(
      serverCard(page, 'everything').locator('[data-testid="tool-item"][data-tool-name="get-sum"]'),
    ).toHaveAttribute('data-needs-approval', 'true');
  });
});
