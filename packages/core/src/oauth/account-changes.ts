import { Store } from '../internal/store.ts';
import type { OAuthChangeChannel } from './oauth-change-channel.ts';

/**
 * Tells listeners that one MCP server's stored tokens changed — here (`notify`) or, through the
 * change channel, in another tab or context. A `Store` whose snapshot is a change counter: the
 * channel is listened to only while somebody subscribes.
 */
export class AccountChanges extends Store<number> {
  readonly #key: string;
  readonly #channel: OAuthChangeChannel | undefined;
  #stopListening: (() => void) | undefined;

  /** @param key - the server key the channel's messages name (`serverKey`). */
  constructor(key: string, channel: OAuthChangeChannel | undefined) {
    super(0);
    this.#key = key;
    this.#channel = channel;
  }

  /** Tokens changed here: tell local listeners, then the other contexts. */
  notify(): void {
    this.set((count) => count + 1);
    this.#channel?.post(this.#key);
  }

  protected override onFirstSubscribe(): void {
    this.#stopListening = this.#channel?.listen((key) => {
      if (key === this.#key) this.set((count) => count + 1);
    });
  }

  protected override onLastUnsubscribe(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
  }
}
