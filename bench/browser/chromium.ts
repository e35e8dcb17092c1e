import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { CHROMIUM_ARGS, SYSTEM_CHROMIUM as CHROMIUM_PATH } from '@switchboard/fixtures/chromium';
import { chromium, type Browser, type Page } from 'playwright-core';

/** `Chromium 1xx.…` as the binary reports it. */
export async function chromiumVersion(): Promise<string> {
  const { stdout } = await promisify(execFile)(CHROMIUM_PATH, ['--version']);
  return stdout.trim().replace(/^Chromium\s+/, '');
}

/**
 * Bundles a page module (`bench/browser/pages/…`) for the browser with esbuild: ESM, React in
 * production mode, not minified (stack traces stay readable; size is benchmark 9's business).
 */
export async function bundlePage(entry: URL): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced nothing for ${entry.href}`);
  return output.text;
}

/** A page served from 127.0.0.1 in a headless Chromium. */
export interface BrowserPage {
  page: Page;
  /** `http://127.0.0.1:PORT` of the page. */
  origin: string;
  /** Reloads the page and waits until its module set `window.benchReady`. */
  reload(): Promise<void>;
}

function serve(script: string): Promise<Server> {
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head>' +
    '<body><div id="root"></div><script type="module" src="/page.js"></script></body></html>';
  const server = createServer((request, response) => {
    if (request.url === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(script);
      return;
    }
    if (request.url === '/' || request.url?.startsWith('/?') === true) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html);
      return;
    }
    response.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Bundles `entry`, serves it from 127.0.0.1, opens it in headless Chromium, waits for
 * `window.benchReady`, runs `body`, and closes the browser and the server whatever happens.
 */
export async function withBrowserPage<T>(
  entry: URL,
  body: (browserPage: BrowserPage) => Promise<T>,
): Promise<T> {
  const script = await bundlePage(entry);
  const server = await serve(script);
  let browser: Browser | undefined;
  try {
    const { port } = server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const waitReady = async () => {
      try {
        await page.waitForFunction(() => (window as { benchReady?: boolean }).benchReady === true, {
          timeout: 30_000,
        });
      } catch (error) {
        throw new Error(`The bench page did not get ready: ${errors.join('; ') || String(error)}`, {
          cause: error,
        });
      }
    };
    await page.goto(`${origin}/`);
    await waitReady();
    return await body({
      page,
      origin,
      async reload() {
        await page.reload();
        await waitReady();
      },
    });
  } finally {
    await browser?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
