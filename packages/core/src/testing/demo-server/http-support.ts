import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body the demo server reads, in bytes. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Headers a browser may send cross-origin (the preflight's own list is reflected as well). */
const ALLOWED_HEADERS = [
  'content-type',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];

/**
 * Sets the CORS headers of every demo server response: the request's `Origin` reflected (`*`
 * without one), methods GET/POST/DELETE/OPTIONS, the MCP request headers plus whatever the
 * preflight asks for, the MCP response headers exposed, max-age 600 s.
 */
export function applyCorsHeaders(request: IncomingMessage, response: ServerResponse): void {
  const origin = request.headers.origin;
  response.setHeader('access-control-allow-origin', origin ?? '*');
  response.setHeader('vary', 'Origin, Access-Control-Request-Headers');
  response.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  const requested = (request.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => /^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name));
  const allowed = [...new Set([...ALLOWED_HEADERS, ...requested])];
  response.setHeader('access-control-allow-headers', allowed.join(', '));
  response.setHeader(
    'access-control-expose-headers',
    'mcp-session-id, mcp-protocol-version, www-authenticate',
  );
  response.setHeader('access-control-max-age', '600');
}

/** Reads the whole request body as UTF-8; rejects above {@link MAX_BODY_BYTES}. */
export function readRequestBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('Request body too large.'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Answers with a JSON body (no-op once the response has started). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Answers with a body of the given content type (no-op once the response has started). */
export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Answers with a JSON-RPC error object without `id` binding (`id: null`), as MCP servers do. */
export function sendJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  sendJson(response, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Resolves after `milliseconds`, or early when `signal` aborts. Never rejects. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  if (milliseconds <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The JSON-RPC messages of a parsed POST body (a batch array or one message). */
function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** The `method` of the first JSON-RPC message in a parsed body, if any. */
export function rpcMethodOf(body: unknown): string | undefined {
  for (const message of messagesOf(body)) {
    if (typeof message === 'object' && message !== null && 'method' in message) {
      const method = (message as { method: unknown }).method;
      if (typeof method === 'string') return method;
    }
  }
  return undefined;
}

/** The `id` of the first JSON-RPC request (a message with `method` and `id`) in a parsed body. */
export function rpcRequestIdOf(body: unknown): string | number | undefined {
  for (const message of messagesOf(body)) {
    if (typeof message === 'object' && message !== null && 'method' in message && 'id' in message) {
      const id = (message as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  }
  return undefined;
}

/** A single header value (the first one when repeated). */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
