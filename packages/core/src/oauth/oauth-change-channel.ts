/**
 * Carries "the credentials of this server changed" between providers in other contexts (tabs,
 * workers); a provider notifies its own subscribers itself.
 */
export interface OAuthChangeChannel {
  /** Tells the other contexts that the credentials stored under `serverKey` changed. */
  post(serverKey: string): void;
  /** Calls `listener` for each change another context posts. Returns stop (idempotent). */
  listen(listener: (serverKey: string) => void): () => void;
}

/** The message a change is posted as; it holds no secret. */
const MESSAGE_TYPE = 'switchboard.oauth-changed';

/**
 * An {@link OAuthChangeChannel} over `BroadcastChannel(name)` (same-origin contexts only), or
 * `undefined` where the runtime has no `BroadcastChannel`. Each call makes a channel of its own:
 * it never hears its own posts, but hears those of other channels of the same name, in this
 * context too.
 */
export function broadcastChangeChannel(name: string): OAuthChangeChannel | undefined {
  if (typeof globalThis.BroadcastChannel !== 'function') return undefined;
  // Not crypto.randomUUID: it exists only in secure contexts.
  const sender = Array.from(crypto.getRandomValues(new Uint32Array(4)), (part) =>
    part.toString(36),
  ).join('-');
  return {
    post(serverKey) {
      const channel = new BroadcastChannel(name);
      channel.postMessage({ type: MESSAGE_TYPE, serverKey, sender });
      channel.close();
    },
    listen(listener) {
      const channel = new BroadcastChannel(name);
      channel.addEventListener('message', (event: MessageEvent<unknown>) => {
        const data = event.data as { type?: unknown; serverKey?: unknown; sender?: unknown } | null;
        if (
          data?.type === MESSAGE_TYPE &&
          typeof data.serverKey === 'string' &&
          data.sender !== sender
        ) {
          listener(data.serverKey);
        }
      });
      // Node's BroadcastChannel would otherwise keep the process alive while listening.
      (channel as { unref?: () => void }).unref?.();
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        channel.close();
      };
    },
  };
}
