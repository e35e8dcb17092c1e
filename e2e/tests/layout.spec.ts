import {
  assistantTexts,
  expect,
  expectIdle,
  interruptOf,
  openPlayground,
  test,
  toolCard,
} from './fixtures.ts';

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('one section at a time, no sideways scrolling, every flow reachable', async ({ page }) => {
    await openPlayground(page);
    const noOverflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

    await expect(page.getByTestId('chat')).toBeVisible();
    await expect(page.getByTestId('threads')).toBeHidden();
    await expect(page.getByTestId('servers')).toBeHidden();
    expect(await noOverflow()).toBe(true);

    await page.getByRole('button', { name: /^delete notes\.txt/ }).click();
    const dialog = interruptOf(page, 'approval');
    await expect(dialog).toBeVisible();
    expect(await noOverflow()).toBe(true);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await expect(toolCard(page, 'demo_delete_file')).toHaveAttribute('data-state', 'done');
    await expectIdle(page);
    expect(await noOverflow()).toBe(true);

    await page.getByTestId('nav-threads').click();
    await expect(page.getByTestId('threads')).toBeVisible();
    await expect(page.getByTestId('chat')).toBeHidden();
    await expect(page.getByTestId('thread-item')).toHaveCount(1);

    await page.getByTestId('nav-tools').click();
    await expect(page.getByTestId('servers')).toBeVisible();
    expect(await noOverflow()).toBe(true);
    await page.getByTestId('tab-runner').click();
    await expect(page.getByTestId('tool-runner')).toBeVisible();
    expect(await noOverflow()).toBe(true);

    await page.getByTestId('nav-chat').click();
    await expect(page.getByTestId('chat')).toBeVisible();
  });
});

test('the chat and an approval work from the keyboard alone', async ({ page }) => {
  await openPlayground(page, ['demo']);
  // Tab from the top of the page reaches the composer.
  await page.locator('body').focus();
  for (let presses = 0; presses < 60; presses += 1) {
    await page.keyboard.press('Tab');
    if (
      await page.getByTestId('chat-input').evaluate((element) => element === document.activeElement)
    ) {
      break;
    }
  }
  await expect(page.getByTestId('chat-input')).toBeFocused();
  await page.keyboard.type('delete notes.txt');
  await page.keyboard.press('Enter');

  const dialog = interruptOf(page, 'approval');
  await expect(dialog.getByRole('button', { name: 'Reject' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByRole('button', { name: 'Approve' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(assistantTexts(page).last()).toHaveText(
    'The tool returned: Deleted notes.txt (demo: nothing was really deleted).',
  );
  // Answered: focus is back where the user was.
  await expect(page.getByTestId('chat-input')).toBeFocused();
  await expectIdle(page);

  // The suggestion buttons and the section tabs are buttons too.
  await page.getByRole('button', { name: 'weather in Oslo' }).focus();
  await page.keyboard.press('Enter');
  await expect(toolCard(page, 'demo_get_weather')).toHaveAttribute('data-state', 'done');
  await expectIdle(page);
  await page.getByTestId('tab-runner').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('tool-runner')).toBeVisible();
});
