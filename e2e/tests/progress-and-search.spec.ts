import {
  assistantTexts,
  expect,
  expectIdle,
  openPlayground,
  sendMessage,
  serverCard,
  test,
  toolCard,
} from './fixtures.ts';

test('the progress bar advances while a slow tool runs', async ({ page }) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'count to 8 slowly');

  const card = toolCard(page, 'demo_slow_count');
  await expect(card.getByTestId('tool-call-arguments')).toContainText('"count": 8');
  const bar = card.getByTestId('tool-call-progress').locator('progress');
  await expect(bar).toHaveAttribute('max', '8');
  const first = Number(await bar.getAttribute('value'));
  await expect
    .poll(async () => Number((await bar.getAttribute('value', { timeout: 2000 })) ?? 0))
    .toBeGreaterThan(first);
  await expect(card.getByTestId('tool-call-progress')).toContainText(/Counted \d of 8/);

  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('tool-call-progress')).toHaveCount(0);
  await expect(card.getByTestId('tool-call-result')).toHaveText('Counted to 8.');
  await expectIdle(page);
});

test('a deferred tool is found through tool_search and then called', async ({ page }) => {
  await openPlayground(page, ['demo', 'demo-2025']);
  // The filler tools are deferred: listed, but not offered to the model until found.
  await expect(serverCard(page, 'demo').getByTestId('tool-count')).toHaveText(
    '171 tools, 160 deferred',
  );

  await sendMessage(page, 'find a tool for invoices');

  const search = toolCard(page, 'tool_search');
  await expect(search.getByTestId('tool-call-arguments')).toContainText('"query": "invoices"');
  await expect(search.getByTestId('tool-call-result')).toContainText('can be called now');
  const found = await search.getByTestId('tool-call-result').innerText();
  const firstFound = /^- ([\w-]+):/m.exec(found)?.[1];
  expect(firstFound).toMatch(/^(demo|legacy)_tool_\d{3}$/);

  const called = toolCard(page, firstFound ?? '');
  await expect(called).toHaveAttribute('data-state', 'done');
  await expect(called.getByTestId('tool-call-result')).toContainText('invoices');
  await expect(assistantTexts(page).last()).toContainText('The tool returned: tool_');
  await expectIdle(page);
});
