import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '@switchboard/fixtures/chromium';

/**
 * End-to-end tests of the playground in real Chromium. `global-setup.ts` starts the playground
 * servers once per run (the page, the everything and demo MCP servers, the scripted model) on
 * free ports on 127.0.0.1 and stops them after the run; each test gets a fresh browser context,
 * so IndexedDB and localStorage start empty. Every test also fails on console errors (see
 * tests/fixtures.ts).
 */
export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  workers: 2,
  retries: 0,
  forbidOnly: process.env['CI'] !== undefined,
  // Generous: a loaded 2-CPU machine can take several seconds per dev-server page load.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    // Kept for failed tests only. Traces are recorded for every test (there are no retries to
    // record them on): DOM snapshots and sources, but no screencast, which would cost the most.
    screenshot: 'only-on-failure',
    trace: { mode: 'retain-on-failure', snapshots: true, screenshots: false, sources: true },
    // Debian's Chromium when installed (CI), else Playwright's own browser.
    launchOptions: chromiumLaunchOptions(),
  },
});
