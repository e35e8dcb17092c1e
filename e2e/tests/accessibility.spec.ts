import { expectAccessible } from './accessibility.ts';
import {
  expect,
  expectIdle,
  expectSumAnswer,
  interruptOf,
  openPlayground,
  sendMessage,
  test,
} from './fixtures.ts';

// axe takes seconds per state on a shared machine: these tests get more than the usual minute.
test.describe.configure({ timeout: 300_000 });

test('every state of the chat has no serious or critical axe violation', async ({ page }) => {
  await openPlayground(page);
  await expectAccessible(page, 'chat: empty');

  await sendMessage(page, 'what is 2 plus 3?');
  await expectSumAnswer(page);
  await expectIdle(page);
  await expectAccessible(page, 'chat: a tool call and its answer');

  await sendMessage(page, 'delete notes.txt');
  await expect(interruptOf(page, 'approval')).toBeVisible();
  await expectAccessible(page, 'chat: approval');
  await interruptOf(page, 'approval').getByRole('button', { name: 'Reject' }).click();
  await expectIdle(page);
  await expectAccessible(page, 'chat: a declined call');

  await sendMessage(page, 'book a table');
  await expect(interruptOf(page, 'form')).toBeVisible();
  await expectAccessible(page, 'chat: form (2026-07-28 server)');
  await interruptOf(page, 'form').getByRole('button', { name: 'Decline' }).click();
  await expectIdle(page);

  await sendMessage(page, 'ask me for my details');
  await expect(interruptOf(page, 'form')).toBeVisible();
  await expectAccessible(page, 'chat: form pushed by a 2025 server');
  await interruptOf(page, 'form').getByRole('button', { name: 'Decline' }).click();
  await expectIdle(page);

  await sendMessage(page, 'connect my calendar');
  await expect(interruptOf(page, 'url')).toBeVisible();
  await expectAccessible(page, 'chat: URL consent');
  await interruptOf(page, 'url').getByRole('button', { name: 'Decline' }).click();
  await expectIdle(page);
});

test('the servers, the tool runner and the settings have no serious or critical axe violation', async ({
  page,
}) => {
  await openPlayground(page);
  await page.getByTestId('tab-servers').click();
  await page.getByTestId('add-server-toggle').click();
  await expectAccessible(page, 'servers, with the add-server form');
  await page.keyboard.press('Escape');

  await page.getByTestId('tab-runner').click();
  await expectAccessible(page, 'tool runner');

  await page.getByTestId('settings-toggle').click();
  await expect(page.getByTestId('settings-form')).toBeVisible();
  await expectAccessible(page, 'settings');
});

test.describe('phone layout', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('chat, servers and runner on a phone have no serious or critical axe violation', async ({
    page,
  }) => {
    await openPlayground(page);
    await expectAccessible(page, 'phone: chat');
    await sendMessage(page, 'delete notes.txt');
    await expect(interruptOf(page, 'approval')).toBeVisible();
    await expectAccessible(page, 'phone: approval');
    await interruptOf(page, 'approval').getByRole('button', { name: 'Approve' }).click();
    await expectIdle(page);
    await page.getByTestId('nav-threads').click();
    await expect(page.getByTestId('threads')).toBeVisible();
    await expectAccessible(page, 'phone: threads');
    await page.getByTestId('nav-tools').click();
    await expect(page.getByTestId('servers')).toBeVisible();
    await expectAccessible(page, 'phone: servers');
    await page.getByTestId('tab-runner').click();
    await expectAccessible(page, 'phone: tool runner');
  });
});

test('focus moves to a form when it appears, and back to the message box once it is answered', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  const input = page.getByTestId('chat-input');
  await input.fill('book a table');
  await input.press('Enter');

  const form = interruptOf(page, 'form');
  const section = form.locator('.sb-interrupt');
  await expect(section).toBeFocused();
  await expect(section).toHaveAccessibleName('Server demo asks for information');
  // Answered from the keyboard alone: Tab to the first field, type, then Decline.
  await page.keyboard.press('Tab');
  await expect(form.locator('input[id$="_name"]')).toBeFocused();
  await page.keyboard.type('Ada');
  await form.getByRole('button', { name: 'Decline' }).focus();
  await page.keyboard.press('Enter');
  await expect(form).toHaveCount(0);
  await expect(input).toBeFocused();
  await expectIdle(page);
});
