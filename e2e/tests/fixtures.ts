import { createServer } from 'node:net';
import { test as base, expect, type Page } from '@playwright/test';
import { playgroundEnvironment } from './playground-environment.ts';

/** The URLs of the servers global-setup.ts started. */
export interface PlaygroundUrls {
  url: string;
  mcpUrl: string;
  modelBaseUrl: string;
}

/** Reads the playground URLs that global-setup.ts put in the environment. */
export function playgroundUrls(): PlaygroundUrls {
  const read = (name: string): string => {
    const value = process.env[name];
    if (value === undefined)
      throw new Error(`${name} is not set: run through playwright.config.ts.`);
    return value;
  };
  return {
    url: read(playgroundEnvironment.url),
    mcpUrl: read(playgroundEnvironment.mcpUrl),
    modelBaseUrl: read(playgroundEnvironment.modelBaseUrl),
  };
}

/**
 * The MCP client's version probe (`server/discover`) gets HTTP 400 from the 2025-era everything
 * server before it falls back to `initialize`; Chromium logs that as a console error. Expected.
 */
const expectedConsoleErrors = [
  /Failed to load resource: the server responded with a status of 400/,
];

export const test = base.extend<{ consoleErrors: string[] }>({
  /** Console errors and uncaught page errors, minus the expected probe 400s. */
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      if (!expectedConsoleErrors.some((pattern) => pattern.test(text))) errors.push(text);
    });
    page.on('pageerror', (error) => errors.push(`Uncaught: ${error.message}`));
    await use(errors);
  },
});

export { expect };

/** Opens the playground and waits until the MCP server is connected and `get-sum` is listed. */
export async function openPlayground(page: Page): Promise<void> {
  await page.goto(playgroundUrls().url);
  await expectConnected(page);
}

/** Waits for the connected status and the `get-sum` tool in the tool list. */
export async function expectConnected(page: Page): Promise<void> {
  await expect(page.getByTestId('server-status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('server-status')).toContainText('Connected');
  await expect(
    page.getByTestId('tool-list').locator('.tool-list__name', { hasText: /^get-sum$/ }),
  ).toBeVisible();
}

/** Types `text` into the composer and clicks Send. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('send-button').click();
}

/** Waits for the chat to finish its run (no Stop button, status idle). */
export async function expectIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', /^(idle|error)$/);
  await expect(page.getByTestId('stop-button')).toHaveCount(0);
}

/** Checks the `get-sum` card and the streamed answer of the "what is 2 plus 3?" flow. */
export async function expectSumAnswer(page: Page): Promise<void> {
  const card = page.getByTestId('tool-call').filter({ hasText: 'get-sum' }).last();
  await expect(card.getByTestId('tool-call-name')).toHaveText('get-sum');
  await expect(card.getByTestId('tool-call-arguments')).toContainText(/"a":\s*2\b/);
  await expect(card.getByTestId('tool-call-arguments')).toContainText(/"b":\s*3\b/);
  await expect(card.getByTestId('tool-call-result')).toHaveText('The sum of 2 and 3 is 5.');
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(
    page
      .locator('[data-testid="message"][data-role="assistant"]')
      .last()
      .getByTestId('message-text'),
  ).toContainText('The tool returned: The sum of 2 and 3 is 5.');
}

/** A TCP port on 127.0.0.1 with nothing listening on it (bound and released at once). */
export async function unusedPort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('No port assigned.'));
      });
    });
  });
}

/** True when the run tests the Vite dev server instead of the production build (see global-setup). */
export const usesDevServer = process.env['SWITCHBOARD_E2E_DEV_SERVER'] === '1';

/**
 * Records Content-Security-Policy violations of every page in the context; read them with
 * {@link cspViolations}. Call before `page.goto`.
 */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const record: string[] = [];
    (window as { __cspViolations?: string[] }).__cspViolations = record;
    document.addEventListener('securitypolicyviolation', (event) => {
      record.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
}

/** The violations {@link recordCspViolations} saw on the current page. */
export async function cspViolations(page: Page): Promise<string[]> {
  return await page.evaluate(
    () => (window as { __cspViolations?: string[] }).__cspViolations ?? ['not recorded'],
  );
}
