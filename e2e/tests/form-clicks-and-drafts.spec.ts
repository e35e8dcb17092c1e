import type { Page } from '@playwright/test';
import {
  expect,
  expectIdle,
  interruptOf,
  openPlayground,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

const booked = "Booked a table at Luigi's for 2 guests on 2026-09-01 (indoor) under Ada.";

/** The drafts the playground keeps in this tab's sessionStorage (see sessionStorageDraftStore). */
async function draftCount(page: Page): Promise<number> {
  return await page.evaluate(
    () =>
      Object.keys(sessionStorage).filter((key) => key.startsWith('switchboard:elicitation-draft:'))
        .length,
  );
}

test('the booking form sends on the first click of Accept, straight from a just-filled field (issue 20, item 1)', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'book a table');
  const form = interruptOf(page, 'form');
  await expect(form).toContainText("Book a table at Luigi's");
  const name = form.locator('input[id$="_name"]');
  const date = form.locator('input[id$="_date"]');

  // Pass through Date while it is empty: it now says it is required.
  await date.click();
  await name.click();
  await expect(form).toContainText("must have required property 'Date'");
  await name.fill('Ada');
  await form.locator('input[id$="_confirm"]').check();
  // Fill Date last and stay in it: its error goes as it is filled, not on a later blur.
  await date.click();
  await page.keyboard.type('09012026');
  await expect(date).toHaveValue('2026-09-01');
  await expect(date).toBeFocused();
  await expect(form).not.toContainText('must have required property');

  // Click Accept directly, by hand: pointer-down blurs Date, and the button must not move
  // between pointer-down and pointer-up, or the click would be lost.
  const accept = form.getByRole('button', { name: 'Accept' });
  await expect(accept).toBeEnabled();
  const before = await accept.boundingBox();
  expect(before).not.toBeNull();
  const x = before!.x + before!.width / 2;
  const y = before!.y + before!.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  expect(await accept.boundingBox()).toEqual(before);
  await page.mouse.up();

  // One click, one answer.
  await expect(toolCard(page, 'demo_book_table').getByTestId('tool-call-result')).toHaveText(
    booked,
  );
  await expectIdle(page);
  await expect(interruptOf(page, 'form')).toHaveCount(0);
});

test('what was typed into the booking form survives a reload, and is gone once the answer is sent (issue 20, item 2)', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'book a table');
  const form = interruptOf(page, 'form');
  await expect(form).toContainText("Book a table at Luigi's");
  await form.locator('input[id$="_name"]').fill('Ada');
  await form.locator('input[id$="_date"]').fill('2026-09-01');
  expect(await draftCount(page)).toBe(1);

  await page.reload();
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
  const restored = interruptOf(page, 'form');
  await expect(restored.locator('input[id$="_name"]')).toHaveValue('Ada');
  await expect(restored.locator('input[id$="_date"]')).toHaveValue('2026-09-01');
  await expect(restored.locator('input[id$="_partySize"]')).toHaveValue('2');

  await restored.locator('input[id$="_confirm"]').check();
  await restored.getByRole('button', { name: 'Accept' }).click();
  await expect(toolCard(page, 'demo_book_table').getByTestId('tool-call-result')).toHaveText(
    booked,
  );
  await expectIdle(page);
  expect(await draftCount(page)).toBe(0);

  // After a reload nothing comes back: no form, no draft; a new booking starts empty.
  await page.reload();
  await expect(toolCard(page, 'demo_book_table').getByTestId('tool-call-result')).toHaveText(
    booked,
  );
  await expect(interruptOf(page, 'form')).toHaveCount(0);
  expect(await draftCount(page)).toBe(0);
  await sendMessage(page, 'book a table');
  const next = interruptOf(page, 'form');
  await expect(next).toContainText("Book a table at Luigi's");
  await expect(next.locator('input[id$="_name"]')).toHaveValue('');
  await expect(next.locator('input[id$="_date"]')).toHaveValue('');
});
