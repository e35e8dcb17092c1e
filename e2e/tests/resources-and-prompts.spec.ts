import { expect, openPlayground, test } from './fixtures.ts';

test('"/" offers the servers\' prompts, completes an argument and fills the composer', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  const input = page.getByTestId('chat-input');
  await input.fill('/sum');
  const menu = page.getByTestId('prompt-menu');
  // One per demo endpoint (2026-07-28 "demo", 2025 "demo-2025"); daily_briefing does not match.
  await expect(menu.getByTestId('prompt-option')).toHaveCount(2);
  await expect(menu.locator('[data-prompt="daily_briefing"]')).toHaveCount(0);
  await menu.locator('[data-prompt="summarize_topic"]', { hasText: '(demo)' }).click();

  const topic = page.getByTestId('prompt-argument-topic');
  await topic.click();
  await topic.fill('a');
  const suggestions = page.getByTestId('prompt-suggestion');
  await expect(suggestions).toHaveText(['agents', 'approvals']);
  await suggestions.filter({ hasText: 'agents' }).click();
  await expect(topic).toHaveValue('agents');
  await page.getByTestId('prompt-use').click();
  await expect(input).toHaveValue('Summarize what the demo server knows about "agents".');
  await expect(page.getByTestId('prompt-menu')).toHaveCount(0);
});

test('the resource browser lists, reads and attaches a resource to the next message', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  await page.getByTestId('tab-resources').click();
  const browser = page.getByTestId('resource-browser');
  const list = browser.getByTestId('resource');
  await expect(list).toHaveCount(4);
  await expect(browser.getByTestId('resource-templates')).toContainText('demo://notes/{topic}');

  const large = browser.locator('[data-uri="demo://files/large.bin"]');
  await large.getByRole('button').first().click();
  await expect(large.getByTestId('resource-too-large')).toContainText('2097152 bytes');

  const readme = browser.locator('[data-uri="demo://docs/readme"]');
  await readme.getByRole('button').first().click();
  await expect(readme.getByTestId('resource-body')).toContainText('# Switchboard demo server');
  await readme.getByTestId('resource-attach').click();
  await expect(page.getByTestId('chat-attachments')).toContainText('Demo server readme');

  await page.getByTestId('chat-input').fill('what is 2 plus 3?');
  await page.getByTestId('send-button').click();
  const sent = page.locator('[data-testid="message"][data-role="user"]');
  await expect(sent.getByTestId('message-resource')).toContainText('Demo server readme');
  await expect(page.getByTestId('chat-attachments')).toHaveCount(0);
});
