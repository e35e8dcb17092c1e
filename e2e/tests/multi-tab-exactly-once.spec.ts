import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { chromiumLaunchOptions } from '@switchboard/fixtures/chromium';
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

/**
 * Makes the page's IndexedDB writes of runs fail while `globalThis.__failRunWrites` is true (an
 * init script, before the playground loads): a full disk, or a browser that evicted the
 * database. `IDBDatabase.transaction` throws as it does for a closed connection.
 */
function failableRunWrites(): void {
  const scope = globalThis as { __failRunWrites?: boolean };
  scope.__failRunWrites = false;
  const original = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (
    this: IDBDatabase,
    names: string | string[],
    mode?: IDBTransactionMode,
    options?: IDBTransactionOptions,
  ): IDBTransaction {
    const stores = typeof names === 'string' ? [names] : [...names];
    if (scope.__failRunWrites === true && mode === 'readwrite' && stores.includes('runs')) {
      throw new DOMException('Injected failure: the disk is full.', 'QuotaExceededError');
    }
    return original.call(this, names, mode, options);
  };
}

/**
 * Opens a second tab running `text` in the playground, with run writes that fail on demand,
 * and waits until its slow_count call reports progress. A count (400 ms a step) whose writes a
 * test makes fail must still be running once the following tab is open: 12 steps, not 6, which
 * a loaded machine finished first.
 */
async function runnerTab(page: Page, text: string) {
  const runner = await page.context().newPage();
  await runner.addInitScript(failableRunWrites);
  const calls = countToolCalls(runner, 'slow_count');
  await openPlayground(runner, ['demo']);
  await sendMessage(runner, text);
  await expect(toolCard(runner, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
    /Counted \d+ of/,
  );
  return { runner, calls };
}

/** Opens the playground's thread in `page` and expects it to follow another tab's run. */
async function followFrom(page: Page): Promise<void> {
  await page.goto(playgroundUrls().url);
  await expect(page.getByTestId('chat-running-elsewhere')).toBeVisible();
}

/**
 * From now on the runner tab cannot write its run (the call's end, the turn and the terminal
 * write all fail, so the stored row stays `running` under a live 30 s lease); resolves once its
 * chat shows the error.
 */
async function failRunWrites(runner: Page): Promise<void> {
  await runner.evaluate(() => {
    (globalThis as { __failRunWrites?: boolean }).__failRunWrites = true;
  });
  await expect(runner.getByTestId('chat')).toHaveAttribute('data-status', 'error', {
    timeout: 10_000,
  });
}

/** Expects `page` to show the interrupted slow_count call recovered, and the thread idle. */
async function expectRecovered(page: Page, options: { timeout?: number } = {}): Promise<void> {
  const recovered = toolCard(page, 'demo_slow_count');
  await expect(recovered).toHaveAttribute('data-state', 'error', options);
  await expect(recovered.getByTestId('tool-error').locator('.sb-error-sentence')).toHaveText(
    'The answer of this tool call was lost, so it may or may not have run. Check whether it took effect before running it again.',
  );
  await expect(page.getByTestId('chat-running-elsewhere')).toHaveCount(0);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
}

test('a run whose terminal write fails is recovered by the following tab once the runner lets go of its lock, and its call is not run again', async ({
  page,
}) => {
  const { runner, calls } = await runnerTab(page, 'count to 12 slowly');
  await followFrom(page);

  await failRunWrites(runner);
  const failedAt = Date.now();

  // The runner keeps its presence lock PRESENCE_LINGER_MS (5 s) after the run, then lets go:
  // the follower recovers the row then, long before the lease would expire.
  await expectRecovered(page);
  const recoveredAfterMs = Date.now() - failedAt;
  expect(recoveredAfterMs, 'recovered well before the 30 s lease expired').toBeLessThan(15_000);
  expect(calls(), 'slow_count calls').toBe(1);

  // The thread continues in the tab that recovered it.
  await sendMessage(page, 'hello again');
  await expect(assistantTexts(page).last()).toContainText('You said: hello again');
  await expectIdle(page);
  expect(calls()).toBe(1);
  await runner.close();
});

test('the runner tab closing while its lock lingers over a row its failed terminal write left: recovered at once', async ({
  page,
}) => {
  const { runner, calls } = await runnerTab(page, 'count to 12 slowly');
  await followFrom(page);
  await failRunWrites(runner);
  // Lingering now (no run of its own, the lock kept for a next run): the close lets it go.
  await runner.close();
  // Sooner than the 5 s linger: the follower reads the thread once a second.
  await expectRecovered(page, { timeout: 4_500 });
  expect(calls(), 'slow_count calls').toBe(1);
});

test('a tab whose renderer crashes mid-run: the following tab recovers the run at once, and the call is not run again', async ({
  page,
}) => {
  const { runner, calls } = await runnerTab(page, 'count to 25 slowly');
  await followFrom(page);
  const crashed = runner.waitForEvent('crash');
  const session = await page.context().newCDPSession(runner);
  // The crash ends the renderer: the command gets no answer.
  void session.send('Page.crash').catch(() => undefined);
  await crashed;
  // The browser let go of the crashed page's locks: no waiting out the 30 s lease.
  await expectRecovered(page);
  expect(calls(), 'slow_count calls').toBe(1);
});

test('a run started while the lock lingers after the last one, then the tab closes: the following tab recovers it at once', async ({
  page,
}) => {
  const runner = await page.context().newPage();
  const calls = countToolCalls(runner, 'slow_count');
  await openPlayground(runner, ['demo']);
  await sendMessage(runner, 'hello');
  await expect(assistantTexts(runner).last()).toContainText('You said: hello');
  await expectIdle(runner);
  // Within the 5 s linger: this run reuses the lock the last one kept.
  await sendMessage(runner, 'count to 25 slowly');
  await expect(toolCard(runner, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
    /Counted \d+ of 25/,
  );
  await followFrom(page);
  await runner.close();
  await expectRecovered(page);
  expect(calls(), 'slow_count calls').toBe(1);
});

test("two tabs taking turns while the other's lock lingers: a reload never recovers the other tab's live run", async ({
  page,
  context,
}) => {
  const callsHere = countToolCalls(page, 'slow_count');
  await openPlayground(page, ['demo']);
  await sendMessage(page, 'hello from one');
  await expect(assistantTexts(page).last()).toContainText('You said: hello from one');
  await expectIdle(page);

  // The second tab runs on the same thread while the first one's lock lingers.
  const other = await context.newPage();
  const otherErrors = consoleErrorsOf(other);
  const callsThere = countToolCalls(other, 'slow_count');
  await openPlayground(other, ['demo']);
  await expect(assistantTexts(other).last()).toContainText('You said: hello from one');
  await sendMessage(other, 'count to 8 slowly');
  await expect(toolCard(other, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
    /Counted \d+ of 8/,
  );
  // The first tab reloads (its lingering lock let go on pagehide): the other's run is alive.
  await page.reload();
  await expect(page.getByTestId('chat-running-elsewhere')).toBeVisible();
  await expect(toolCard(other, 'demo_slow_count')).toHaveAttribute('data-state', 'done', {
    timeout: 20_000,
  });
  await expectIdle(other);
  await expect(page.getByTestId('chat-running-elsewhere')).toHaveCount(0);
  await expect(toolCard(page, 'demo_slow_count')).toHaveAttribute('data-state', 'done');

  // Now the second tab lingers and the first runs; the second reloads meanwhile.
  await sendMessage(page, 'count to 8 slowly');
  await expect(
    toolCard(page, 'demo_slow_count').last().getByTestId('tool-call-progress'),
  ).toContainText(/Counted \d+ of 8/);
  await other.reload();
  await expect(other.getByTestId('chat-running-elsewhere')).toBeVisible();
  await expect(toolCard(page, 'demo_slow_count').last()).toHaveAttribute('data-state', 'done', {
    timeout: 20_000,
  });
  await expectIdle(page);
  await expect(other.getByTestId('chat-running-elsewhere')).toHaveCount(0);
  for (const tab of [page, other]) {
    await expect(toolCard(tab, 'demo_slow_count')).toHaveCount(2);
    for (const card of await toolCard(tab, 'demo_slow_count').all()) {
      await expect(card).toHaveAttribute('data-state', 'done');
    }
  }
  expect(callsHere() + callsThere(), 'slow_count calls, both tabs').toBe(2);
  expect(otherErrors, 'console errors of the second tab').toEqual([]);
});

/** The pid of the browser process (not a renderer or helper) started with `profile` (Linux). */
async function browserProcessOf(profile: string): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const argv = args.split('\0');
    if (
      argv.includes(`--user-data-dir=${profile}`) &&
      !argv.some((arg) => arg.startsWith('--type='))
    ) {
      return Number(entry);
    }
  }
  throw new Error(`no browser process with the profile ${profile}`);
}

test('the browser killed mid-run: reopened on the same profile, the run is recovered at once and its call not run again', async () => {
  test.skip(
    process.platform !== 'linux',
    'killing the browser needs its process id, read from /proc (Linux only)',
  );
  const profile = await mkdtemp(join(tmpdir(), 'switchboard-profile-'));
  const open = () => chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions() });
  try {
    const before = await open();
    const tab = before.pages()[0] ?? (await before.newPage());
    const calls = countToolCalls(tab, 'slow_count');
    await openPlayground(tab, ['demo']);
    await sendMessage(tab, 'count to 25 slowly');
    await expect(toolCard(tab, 'demo_slow_count').getByTestId('tool-call-progress')).toContainText(
      /Counted \d+ of 25/,
    );
    // SIGKILL: no pagehide, no unload, nothing written after; the 30 s lease is still live.
    process.kill(await browserProcessOf(profile), 'SIGKILL');
    await before.close().catch(() => undefined);

    const after = await open();
    try {
      const reopened = after.pages()[0] ?? (await after.newPage());
      const callsAfter = countToolCalls(reopened, 'slow_count');
      await reopened.goto(playgroundUrls().url);
      // The thread is in IndexedDB; which thread was open (localStorage, written lazily) may
      // not have survived the kill: open it from the list.
      await reopened
        .getByRole('region', { name: 'Threads' })
        .getByRole('button', { name: /^count to 25 slowly/ })
        .click();
      await expectRecovered(reopened);
      expect(calls() + callsAfter(), 'slow_count calls').toBe(1);
    } finally {
      await after.close();
    }
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
});
