import { createServer } from 'node:net';
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import { playgroundEnvironment } from './playground-environment.ts';

/** The URLs of the servers global-setup.ts started. */
export interface PlaygroundUrls {
  /** The page. */
  url: string;
  /** The everything server's MCP endpoint (2025 era). */
  mcpUrl: string;
  /** The scripted model's OpenAI base URL (ends in `/v1`). */
  modelBaseUrl: string;
  /** The scripted model server itself (the Anthropic SDK's base URL). */
  modelServerUrl: string;
  /** The demo server's base URL; `/modern/mcp`, `/legacy/mcp`, `/control/faults` below it. */
  demoUrl: string;
}

/** Reads the playground URLs that global-setup.ts put in the environment. */
export function playgroundUrls(): PlaygroundUrls {
  const read = (name: string): string => {
    const value = process.env[name];
    if (value === undefined)
      throw new Error(`${name} is not set: run through playwright.config.ts.`);
    return value;
  };
  const modelBaseUrl = read(playgroundEnvironment.modelBaseUrl);
  return {
    url: read(playgroundEnvironment.url),
    mcpUrl: read(playgroundEnvironment.mcpUrl),
    modelBaseUrl,
    modelServerUrl: modelBaseUrl.replace(/\/v1$/, ''),
    demoUrl: read(playgroundEnvironment.demoUrl),
  };
}

/** The servers a fresh browser starts with. */
export const defaultServerNames = ['demo', 'demo-2025', 'everything'] as const;

export const test = base.extend<{
  consoleErrors: string[];
  expectedConsoleErrors: RegExp | undefined;
}>({
  /**
   * Console errors a test expects (e.g. the browser's "Failed to load resource" line for a
   * server the test made unreachable), as one pattern. Set with
   * `test.use({ expectedConsoleErrors: /…|…/ })`.
   */
  expectedConsoleErrors: [undefined, { option: true }],
  /**
   * Console errors and uncaught page errors, minus the expected ones. Every test fails when any
   * is left at its end: the playground must run without console errors. (The MCP client's
   * version probe would get HTTP 400 from 2025-era servers; the playground answers it in the
   * page for servers it knows to be 2025-era, so no such line is expected.)
   */
  consoleErrors: [
    async ({ page, expectedConsoleErrors }, use) => {
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        const text = message.text();
        if (expectedConsoleErrors?.test(text) !== true) errors.push(text);
      });
      page.on('pageerror', (error) => errors.push(`Uncaught: ${error.message}`));
      await use(errors);
      expect(errors, 'console errors of the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The card of one MCP server in the Servers panel. */
export function serverCard(page: Page, name: string): Locator {
  return page.locator(`[data-testid="server-card"][data-server-name="${name}"]`);
}

/** Waits until the server's card says connected and lists tools. */
export async function expectServerConnected(page: Page, name: string): Promise<void> {
  const card = serverCard(page, name);
  await expect(card).toHaveAttribute('data-status', 'connected');
  await expect(card.getByTestId('tool-count')).toContainText(/\d+ tools/);
}

/**
 * Opens the playground and waits until the given servers (default: the three default ones)
 * are connected with their tools listed.
 */
export async function openPlayground(
  page: Page,
  servers: readonly string[] = defaultServerNames,
): Promise<void> {
  await page.goto(playgroundUrls().url);
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  for (const name of servers) await expectServerConnected(page, name);
}

/** Types `text` into the composer and clicks Send. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('send-button').click();
}

/** Waits for the chat to finish its run (no Stop button, status idle or error). */
export async function expectIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', /^(idle|error)$/);
  await expect(page.getByTestId('stop-button')).toHaveCount(0);
}

/** The text parts of the assistant's messages. */
export function assistantTexts(page: Page): Locator {
  return page.locator(
    '[data-testid="message"][data-role="assistant"] [data-testid="message-text"]',
  );
}

/** The chat's card of a tool call, by the name the model used. */
export function toolCard(page: Page, toolName: string): Locator {
  return page.locator(`[data-testid="tool-call"][data-tool-name="${toolName}"]`);
}

/** A call waiting for the human (chat or runner), by mode. */
export function interruptOf(page: Page, mode: 'approval' | 'form' | 'url'): Locator {
  return page.locator(`[data-testid="interrupt"][data-mode="${mode}"]`);
}

/** Checks the `get-sum` card and the streamed answer of the "what is 2 plus 3?" flow. */
export async function expectSumAnswer(page: Page): Promise<void> {
  const card = toolCard(page, 'get-sum').last();
  await expect(card.getByTestId('tool-call-name')).toHaveText('get-sum');
  await expect(card.getByTestId('tool-call-arguments')).toContainText(/"a":\s*2\b/);
  await expect(card.getByTestId('tool-call-arguments')).toContainText(/"b":\s*3\b/);
  await expect(card.getByTestId('tool-call-result')).toHaveText('The sum of 2 and 3 is 5.');
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(assistantTexts(page).last()).toContainText(
    'The tool returned: The sum of 2 and 3 is 5.',
  );
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

/**
 * Adds an MCP server through the Servers panel's form.
 */
export async function addServer(
  page: Page,
  server: {
    name: string;
    url: string;
    transport?: 'auto' | 'streamable-http' | 'sse';
    protocol?: 'detect' | '2025';
    toolPrefix?: string;
    headers?: { name: string; value: string }[];
    /** Checks "Sign in with OAuth". */
    oauth?: boolean;
  },
): Promise<void> {
  await page.getByTestId('add-server-toggle').click();
  const form = page.getByTestId('add-server-form');
  await form.getByTestId('add-server-name').fill(server.name);
  await form.getByTestId('add-server-url').fill(server.url);
  if (server.transport !== undefined) {
    await form.getByTestId('add-server-transport').selectOption(server.transport);
  }
  if (server.protocol !== undefined) {
    await form.getByTestId('add-server-protocol').selectOption(server.protocol);
  }
  if (server.toolPrefix !== undefined) {
    await form.getByTestId('add-server-prefix').fill(server.toolPrefix);
  }
  for (const [index, header] of (server.headers ?? []).entries()) {
    await form.getByTestId('add-server-add-header').click();
    await form.getByTestId('add-server-header-name').nth(index).fill(header.name);
    await form.getByTestId('add-server-header-value').nth(index).fill(header.value);
  }
  if (server.oauth === true) await form.getByTestId('add-server-oauth').check();
  await form.getByTestId('add-server-submit').click();
  await expect(form).toHaveCount(0);
}

/** Unfolds a server's tool list (long lists start folded) and returns the card. */
export async function showTools(page: Page, name: string): Promise<Locator> {
  const card = serverCard(page, name);
  const list = card.locator('details.tools');
  if (!(await list.evaluate((element: HTMLDetailsElement) => element.open))) {
    await card.getByTestId('tool-count').click();
  }
  return card;
}

/** Counts the page's `tools/call` requests for `toolName` to the demo server's modern endpoint. */
export function countToolCalls(page: Page, toolName: string): () => number {
  const endpoint = `${playgroundUrls().demoUrl}/modern/mcp`;
  let count = 0;
  page.on('request', (request) => {
    if (request.method() !== 'POST' || request.url() !== endpoint) return;
    const body = request.postDataJSON() as { method?: string; params?: { name?: string } } | null;
    if (body?.method === 'tools/call' && body.params?.name === toolName) count += 1;
  });
  return () => count;
}
