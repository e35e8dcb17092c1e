import {
  assistantTexts,
  expect,
  expectIdle,
  interruptOf,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

test.describe('forms pushed by a 2025-era server (everything: trigger-elicitation-request)', () => {
  test('accept sends valid values', async ({ page }) => {
    await openPlayground(page, ['everything']);
    await sendMessage(page, 'ask me for my details');

    const form = interruptOf(page, 'form');
    await expect(form).toContainText('Server everything asks for information');
    await expect(form).toContainText('Please provide inputs for the following fields:');
    await expect(toolCard(page, 'trigger-elicitation-request')).toHaveAttribute(
      'data-state',
      'waiting',
    );
    const accept = form.getByRole('button', { name: 'Accept' });
    // "name" is required: Accept waits for it.
    await expect(accept).toBeDisabled();
    await form.locator('input[id$="_name"]').fill('Ada Lovelace');
    await form.locator('input[id$="_email"]').fill('ada@example.com');
    await form.locator('input[id$="_integer"]').fill('7');
    await expect(accept).toBeEnabled();
    await accept.click();

    const result = toolCard(page, 'trigger-elicitation-request').getByTestId('tool-call-result');
    await expect(result).toContainText('User provided the requested information!');
    await expect(result).toContainText('- Name: Ada Lovelace');
    await expect(result).toContainText('- Email: ada@example.com');
    await expect(result).toContainText('- Favorite Integer: 7');
    await expect(assistantTexts(page).last()).toContainText('The tool returned:');
    await expectIdle(page);
    await expect(interruptOf(page, 'form')).toHaveCount(0);
  });

  test('decline sends "decline"', async ({ page }) => {
    await openPlayground(page, ['everything']);
    await sendMessage(page, 'ask me for my details');
    await interruptOf(page, 'form').getByRole('button', { name: 'Decline' }).click();

    const card = toolCard(page, 'trigger-elicitation-request');
    await expect(card.getByTestId('tool-call-result')).toContainText(
      'User declined to provide the requested information.',
    );
    await expect(card.getByTestId('tool-call-result')).toContainText('"action": "decline"');
    await expectIdle(page);
  });
});

test('a 2026-07-28 form (MRTR, demo book_table) survives a reload, then completes', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'book a table');
  const form = interruptOf(page, 'form');
  await expect(form).toContainText("Book a table at Luigi's: who is it for");
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');

  // The pending form is in IndexedDB (the run's state carries the server's requestState).
  await page.reload();
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
  const restored = interruptOf(page, 'form');
  await expect(restored).toContainText("Book a table at Luigi's: who is it for");
  await expect(toolCard(page, 'demo_book_table')).toHaveAttribute('data-state', 'waiting');
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveText(
    /book a table/,
  );

  await restored.locator('input[id$="_name"]').fill('Ada');
  await restored.locator('input[id$="_partySize"]').fill('4');
  await restored.locator('input[id$="_date"]').fill('2026-09-01');
  await restored.locator('select[id$="_seating"]').selectOption({ label: 'Outdoor (terrace)' });
  // No focus juggling: the click goes straight from the field just typed in (issue 20, item 1).
  await restored.locator('input[id$="_confirm"]').check();
  await restored.getByRole('button', { name: 'Accept' }).click();

  const booked = "Booked a table at Luigi's for 4 guests on 2026-09-01 (outdoor) under Ada.";
  await expect(toolCard(page, 'demo_book_table').getByTestId('tool-call-result')).toHaveText(
    booked,
  );
  await expect(assistantTexts(page).last()).toHaveText(`The tool returned: ${booked}`);
  await expectIdle(page);
});

test('URL consent: nothing opens until the click, then the page opens in a new window', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['demo']);
  let opened = 0;
  context.on('page', () => (opened += 1));

  await sendMessage(page, 'connect my calendar');
  const consent = interruptOf(page, 'url');
  await expect(consent).toContainText('Open the demo authorization page to connect your calendar');
  const demoHost = new URL(playgroundUrls().demoUrl).host;
  await expect(consent.locator('.sb-url-host')).toHaveText(demoHost);
  await expect(consent.getByTestId('sb-url')).toContainText('/demo/authorize?elicitation=');
  // Shown, not opened: no window yet, and "I've finished" only after opening.
  await page.waitForTimeout(300);
  expect(opened).toBe(0);
  expect(context.pages()).toHaveLength(1);
  await expect(consent.getByRole('button', { name: "I've finished" })).toHaveCount(0);

  const [popup] = await Promise.all([
    context.waitForEvent('page'),
    consent.getByRole('button', { name: 'Open' }).click(),
  ]);
  await popup.waitForLoadState();
  expect(popup.url()).toMatch(
    new RegExp(`^http://${demoHost.replace('.', '\\.')}/demo/authorize\\?elicitation=`),
  );
  await expect(popup.locator('h1')).toHaveText('Authorized');
  // Opened with noopener: the new page cannot reach the playground.
  expect(await popup.evaluate(() => window.opener)).toBeNull();
  await popup.close();

  await consent.getByRole('button', { name: "I've finished" }).click();
  const result = toolCard(page, 'demo_connect_account').getByTestId('tool-call-result');
  await expect(result).toHaveText(
    'Connected the calendar account (the authorization page was visited).',
  );
  await expectIdle(page);
});
