import type { Page } from '@playwright/test';
import {
  assistantTexts,
  countToolCalls,
  expect,
  expectIdle,
  expectServerConnected,
  interruptOf,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

/**
 * Exactly-once runs in real Chromium: two tabs of one browser profile share the playground's
 * IndexedDB history, as a person's tabs do. Every page must stay free of console errors (see
 * fixtures.ts), the loser of a race included.
 */

/** Collects a second page's console errors (the fixture watches the first page only). */
function consoleErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`Uncaught: ${error.message}`));
  return errors;
}

const deleted = 'Deleted notes.txt (demo: nothing was really deleted).';

test('two tabs approve the same call at once: the tool runs once and both tabs show the same outcome', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'delete notes.txt');
  await expect(interruptOf(page, 'approval')).toContainText('Allow demo_delete_file from demo?');

  // The second tab opens the same thread (the open thread is kept in localStorage).
  const other = await context.newPage();
  const otherErrors = consoleErrorsOf(other);
  await other.goto(playgroundUrls().url);
  await expect(other.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
  await expectServerConnected(other, 'demo');
  await expect(interruptOf(other, 'approval')).toContainText('Allow demo_delete_file from demo?');
  await expect(toolCard(other, 'demo_delete_file')).toHaveAttribute('data-state', 'waiting');

  const calls = [countToolCalls(page, 'delete_file'), countToolCalls(other, 'delete_file')];
  const approve = (tab: Page) =>
    interruptOf(tab, 'approval').getByRole('button', { name: 'Approve' }).click();
  await Promise.all([approve(page), approve(other)]);

  for (const tab of [page, other]) {
    const card = toolCard(tab, 'demo_delete_file');
    await expect(card).toHaveAttribute('data-state', 'done');
    await expect(card.getByTestId('tool-call-result')).toHaveText(deleted);
    await expect(assistantTexts(tab).last()).toHaveText(`The tool returned: ${deleted}`);
    await expectIdle(tab);
    await expect(tab.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
    await expect(tab.getByTestId('chat-error')).toHaveCount(0);
    await expect(interruptOf(tab, 'approval')).toHaveCount(0);
    await expect(toolCard(tab, 'demo_delete_file')).toHaveCount(1);
  }
  // Both tabs show the same conversation. Except one label: a card streamed live names the
  // call's server ("on demo"), one rebuilt from history cannot (stored calls do not record it),
  // and which tab streamed the call depends on who won.
  const transcript = async (tab: Page) =>
    (await tab.getByTestId('message-list').innerText()).replace(/^on demo\n/m, '');
  expect(await transcript(other)).toBe(await transcript(page));
  expect(calls[0]!() + calls[1]!(), 'tools/call requests for delete_file, both tabs').toBe(1);
  expect(otherErrors, 'console errors of the second tab').toEqual([]);
});

/** A lease short enough that a reloaded page recovers the interrupted run within seconds. */
const leaseMs = 2_000;

test('a reload during a slow tool call leaves a thread that continues', async ({ page }) => {
  const calls = countToolCalls(page, 'slow_count');
  await page.goto(new URL(`/?leaseMs=${leaseMs}`, playgroundUrls().url).href);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expectServerConnected(page, 'demo');

  // 25 steps of 400 ms: the call is still running when the page reloads.
  await sendMessage(page, 'count to 25 slowly');
  const card = toolCard(page, 'demo_slow_count');
  await expect(card.getByTestId('tool-call-progress')).toContainText(/Counted \d+ of 25/);
  await page.reload();

  // The reloaded page shows the interrupted call with an unknown outcome, not stuck running.
  const recovered = toolCard(page, 'demo_slow_count');
  await expect(recovered).toHaveAttribute('data-state', 'error');
  await expect(recovered.getByTestId('tool-error').locator('.sb-error-sentence')).toHaveText(
    'The answer of this tool call was lost, so it may or may not have run. Check whether it took effect before running it again.',
  );
  await expectIdle(page);
  await expect(page.getByTestId('chat-error')).toHaveCount(0);
  expect(calls(), 'the interrupted call is not run again').toBe(1);

  // The thread continues: a new message gets an answer.
  await sendMessage(page, 'hello again');
  await expect(assistantTexts(page).last()).toContainText('You said: hello again');
  await expectIdle(page);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expect(toolCard(page, 'demo_slow_count')).toHaveAttribute('data-state', 'error');
  expect(calls()).toBe(1);
});

/**
 * With the default 30 s lease: the page going away lets go of its presence lock (pagehide), so
 * the reloaded page recovers the run when it loads — no "Running in another tab…" for the
 * lease's length. The expect timeout (15 s) is shorter than the lease: waiting it out fails.
 */
test('a reload mid-run shows the interrupted call at once, without waiting out the lease', async ({
  page,
}) => {
  const calls = countToolCalls(page, 'slow_count');
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'count to 25 slowly');
  await expect(toolCard(page, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
    /Counted \d+ of 25/,
  );
  await page.reload();

  const recovered = toolCard(page, 'demo_slow_count');
  await expect(recovered).toHaveAttribute('data-state', 'error');
  await expect(recovered.getByTestId('tool-error').locator('.sb-error-sentence')).toHaveText(
    'The answer of this tool call was lost, so it may or may not have run. Check whether it took effect before running it again.',
  );
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  await expect(page.getByTestId('chat-running-elsewhere')).toHaveCount(0);
  expect(calls(), 'the interrupted call is not run again').toBe(1);
});

test('a tab following a run another tab runs sees it end when that tab closes', async ({
  page,
  context,
}) => {
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'count to 25 slowly');
  await expect(toolCard(page, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
    /Counted \d+ of 25/,
  );

  const other = await context.newPage();
  const otherErrors = consoleErrorsOf(other);
  await other.goto(playgroundUrls().url);
  await expect(other.getByTestId('chat-running-elsewhere')).toBeVisible();
  await page.close();

  const recovered = toolCard(other, 'demo_slow_count');
  await expect(recovered).toHaveAttribute('data-state', 'error');
  await expect(other.getByTestId('chat-running-elsewhere')).toHaveCount(0);
  await expect(other.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  expect(otherErrors, 'console errors of the second tab').toEqual([]);
});
