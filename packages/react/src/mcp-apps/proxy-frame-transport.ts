import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/**
 * The host's end of the `postMessage` channel to one sandbox proxy frame, for `AppBridge`.
 * Unlike ext-apps' `PostMessageTransport` (which posts with `'*'` and accepts any origin), it
 * posts with the proxy's exact origin as the target, and takes a message only when
 * `event.source` is that frame's window and `event.origin` its origin (MCP Apps 2026-01-26,
 * "Sandbox proxy"; docs/mcp-apps.md, "Security model"). Anything else, and anything that is not
 * JSON-RPC 2.0, is dropped unseen.
 */
export class ProxyFrameTransport implements Transport {
  readonly #frame: Window;
  readonly #origin: string;
  readonly #listener = (event: MessageEvent): void => {
    if (!acceptsMessage(event, this.#frame, this.#origin)) return;
    this.onmessage?.(event.data as JSONRPCMessage);
  };
  #started = false;

  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /**
   * @param frame The proxy iframe's `contentWindow`.
   * @param origin The proxy's origin (`new URL(proxyUrl).origin`); never `'*'`.
   * @throws Error when `origin` is `'*'` or `'null'`.
   */
  constructor(frame: Window, origin: string) {
    if (origin === '*' || origin === 'null') {
      throw new Error('The sandbox proxy needs an explicit origin.');
    }
    this.#frame = frame;
    this.#origin = origin;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    window.addEventListener('message', this.#listener);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#frame.postMessage(message, this.#origin);
  }

  async close(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    window.removeEventListener('message', this.#listener);
    this.onclose?.();
  }
}

/**
 * Whether a `message` event comes from the proxy frame: its window, its origin, a JSON-RPC 2.0
 * object. Exported for tests.
 */
export function acceptsMessage(
  event: Pick<MessageEvent, 'source' | 'origin' | 'data'>,
  frame: Window,
  origin: string,
): boolean {
  if (event.source !== frame || event.origin !== origin) return false;
  const data: unknown = event.data;
  return (
    typeof data === 'object' && data !== null && (data as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}
