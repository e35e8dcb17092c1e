import {
  assistantTexts,
  expect,
  expectIdle,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

// A request that cannot leave the browser says so within seconds (the expect timeout) instead of
// showing "Thinking…" until a time limit, and never blames the servers.
test.describe('a request that cannot leave the browser', () => {
  test.describe('offline', () => {
    // Requests the page had in flight (MCP streams) fail while the context is offline.
    test.use({ expectedConsoleErrors: /net::ERR_INTERNET_DISCONNECTED/ });

    test('a message sent while offline fails at once with "You are offline"', async ({
      page,
      context,
    }) => {
      await openPlayground(page, []);
      await context.setOffline(true);
      await sendMessage(page, 'what is 2 plus 3?');

      const error = page.getByTestId('chat-error');
      await expect(error).toContainText('You are offline');
      await expect(error).not.toContainText(/not running|CORS/);
      await expectIdle(page);
      await expect(page.getByTestId('chat-thinking')).toHaveCount(0);
      await context.setOffline(false);
    });
  });

  test('with every connection to the model host held, the chat says it waits for one, then answers once they are released', async ({
    page,
  }) => {
    await openPlayground(page, []);
    const { modelServerUrl } = playgroundUrls();
    // Six long-lived streams to the model host, as other tabs' streams would hold them:
    // Chromium opens at most 6 HTTP/1.1 connections per host.
    await page.evaluate(async (url) => {
      const holder = new AbortController();
      (window as { releaseHeld?: () => void }).releaseHeld = () => holder.abort();
      await Promise.all(
        Array.from({ length: 6 }, () =>
          fetch(`${url}/v1/hold`, { signal: holder.signal, cache: 'no-store' }),
        ),
      );
    }, modelServerUrl);

    await sendMessage(page, 'what is 2 plus 3?');
    const notice = page.getByTestId('chat-model-waiting');
    await expect(notice).toBeVisible();
    await expect(notice).toHaveAttribute('role', 'status');
    await expect(notice).toContainText(
      `Waiting for a free connection to ${new URL(modelServerUrl).host} — other tabs may be holding them`,
    );
    await expect(page.getByTestId('chat-thinking')).toHaveCount(0);

    await page.evaluate(() => (window as { releaseHeld?: () => void }).releaseHeld?.());
    await expect(assistantTexts(page).last()).toContainText('The sum of 2 and 3 is 5.');
    await expect(notice).toHaveCount(0);
    await expectIdle(page);
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
  });
});

test('with every connection to an MCP server held, its tool card says the request waits, then the call answers once they are released', async ({
  page,
}) => {
  await openPlayground(page, ['demo']);
  const { demoUrl } = playgroundUrls();
  // Six streams to the demo server's host, as other tabs or an app's own streams would hold
  // them (its own list_changed streams hold some already: the surplus queues ahead of the call).
  // Not awaited: the queued ones never get headers while the others are held.
  await page.evaluate((url) => {
    const holder = new AbortController();
    (window as { releaseHeld?: () => void }).releaseHeld = () => holder.abort();
    for (let index = 0; index < 6; index += 1) {
      fetch(`${url}/control/hold`, { signal: holder.signal, cache: 'no-store' }).catch(() => {
        // Released.
      });
    }
  }, demoUrl);

  await sendMessage(page, 'weather in Oslo');
  const card = toolCard(page, 'demo_get_weather');
  const notice = card.getByTestId('tool-call-waiting');
  await expect(notice).toBeVisible();
  await expect(notice).toHaveAttribute('role', 'status');
  await expect(notice).toContainText(
    `Waiting for the browser to send the request to ${new URL(demoUrl).host} — other tabs may be holding this server's connections`,
  );
  await expect(card).toHaveAttribute('data-state', 'running');

  await page.evaluate(() => (window as { releaseHeld?: () => void }).releaseHeld?.());
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(notice).toHaveCount(0);
  await expect(card.getByTestId('tool-call-structured')).toContainText('"city": "Oslo"');
  await expectIdle(page);
  await expect(page.getByTestId('chat-error')).toHaveCount(0);
});
