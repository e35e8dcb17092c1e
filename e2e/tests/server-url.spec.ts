import {
  expect,
  expectConnected,
  expectIdle,
  expectSumAnswer,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  unusedPort,
} from './fixtures.ts';

test('a server that refuses connections shows a clear error; reconnecting works', async ({
  page,
}) => {
  await openPlayground(page);

  // A URL that is not http(s) is refused before connecting; the connection stays as it is.
  await page.getByTestId('server-url-input').fill('ftp://127.0.0.1/mcp');
  await page.getByTestId('server-connect').click();
  await expect(page.getByRole('alert')).toContainText('MCP server URLs must be http(s)');
  await expect(page.getByTestId('server-status')).toHaveAttribute('data-status', 'connected');

  const refusedUrl = `http://127.0.0.1:${await unusedPort()}/mcp`;

  await page.getByTestId('server-url-input').fill(refusedUrl);
  await page.getByTestId('server-connect').click();

  const status = page.getByTestId('server-status');
  await expect(status).toHaveAttribute('data-status', 'error');
  await expect(status).toHaveAttribute('role', 'alert');
  await expect(page.getByTestId('server-error-code')).toHaveText('connection_refused');
  await expect(page.getByTestId('server-error-message')).toContainText(
    `Could not reach MCP server "127.0.0.1:${new URL(refusedUrl).port}"`,
  );
  await expect(page.getByTestId('tool-list')).toHaveCount(0);

  // The chat keeps working, without the server's tools.
  await sendMessage(page, 'hello');
  await expect(
    page.locator('[data-testid="message"][data-role="assistant"]').getByTestId('message-text'),
  ).toContainText('I am a scripted model (no real LLM)');
  await expectIdle(page);
  await expect(page.getByTestId('chat-error')).toHaveCount(0);

  // Back to the good server: connected again, and the tool flow works.
  await page.getByTestId('server-url-input').fill(playgroundUrls().mcpUrl);
  await page.getByTestId('server-connect').click();
  await expectConnected(page);
  await sendMessage(page, 'what is 2 plus 3?');
  await expectSumAnswer(page);
  await expectIdle(page);
});
