import { expect, expectIdle, openPlayground, sendMessage, test } from './fixtures.ts';
import type { Locator, Page } from '@playwright/test';

/** The user message at `index` (0-based) of the shown branch. */
function userMessage(page: Page, index: number): Locator {
  return page.locator('[data-testid="message"][data-role="user"]').nth(index);
}

function lastAnswer(page: Page): Locator {
  return page
    .locator('[data-testid="message"][data-role="assistant"] [data-testid="message-text"]')
    .last();
}

// docs/conversations.md, "Branches": edit and regenerate keep the old branch, ‹ › switch
// between versions, and the selected branch comes back after a reload (IndexedDB).
test('edit, regenerate and switch branches; a reload restores the selected branch', async ({
  page,
}) => {
  await openPlayground(page, []);
  await sendMessage(page, 'hello there');
  await expect(lastAnswer(page)).toContainText('You said: hello there');
  await expectIdle(page);
  await sendMessage(page, 'second question');
  await expect(lastAnswer(page)).toContainText('You said: second question');
  await expectIdle(page);
  // One version each: no pager yet.
  await expect(page.getByTestId('branch-position')).toHaveCount(0);

  // Edit the second message: Escape leaves the form, Save sends the new text on a new branch.
  const second = userMessage(page, 1);
  await second.getByRole('button', { name: 'Edit this message' }).click();
  const editor = second.getByRole('textbox', { name: 'Edited message' });
  await expect(editor).toBeFocused();
  await editor.press('Escape');
  await expect(second.getByTestId('edit-form')).toHaveCount(0);
  await second.getByRole('button', { name: 'Edit this message' }).click();
  await editor.fill('second question, edited');
  await second.getByRole('button', { name: 'Save and send' }).click();
  await expect(lastAnswer(page)).toContainText('You said: second question, edited');
  await expectIdle(page);
  await expect(page.getByTestId('message')).toHaveCount(4);
  await expect(userMessage(page, 0).getByTestId('branch-position')).toHaveCount(0);
  await expect(second.getByTestId('branch-position')).toHaveText('2 / 2');

  // Regenerate the answer: a third version of the same message.
  await page.getByRole('button', { name: 'Regenerate this answer' }).last().click();
  await expectIdle(page);
  await expect(second.getByTestId('branch-position')).toHaveText('3 / 3');
  await expect(second.getByTestId('message-text')).toHaveText('second question, edited');

  // Back to the first version, by mouse and by keyboard.
  await second.getByRole('button', { name: 'Previous version' }).click();
  await expect(second.getByTestId('branch-position')).toHaveText('2 / 3');
  const previous = second.getByRole('button', { name: 'Previous version' });
  await previous.focus();
  await page.keyboard.press('Enter');
  await expect(second.getByTestId('branch-position')).toHaveText('1 / 3');
  await expect(second.getByTestId('message-text')).toHaveText('second question');
  await expect(lastAnswer(page)).toContainText('You said: second question');
  await expect(second.getByRole('button', { name: 'Previous version' })).toBeDisabled();

  // The choice is stored: a reload shows the same branch.
  await page.reload();
  await expect(second.getByTestId('branch-position')).toHaveText('1 / 3');
  await expect(second.getByTestId('message-text')).toHaveText('second question');
  await expect(page.getByTestId('message')).toHaveCount(4);

  await second.getByRole('button', { name: 'Next version' }).click();
  await expect(second.getByTestId('branch-position')).toHaveText('2 / 3');
  await page.reload();
  await expect(second.getByTestId('branch-position')).toHaveText('2 / 3');
  await expect(second.getByTestId('message-text')).toHaveText('second question, edited');

  // A new message continues the shown branch.
  await sendMessage(page, 'third question');
  await expect(lastAnswer(page)).toContainText('You said: third question');
  await expectIdle(page);
  await expect(page.getByTestId('message')).toHaveCount(6);
  await expect(second.getByTestId('branch-position')).toHaveText('2 / 3');
  await page.reload();
  await expect(page.getByTestId('message')).toHaveCount(6);
  await expect(second.getByTestId('message-text')).toHaveText('second question, edited');
});
