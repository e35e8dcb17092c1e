import type { ClosableStream } from './connection/tab-stream-lead.ts';
import type { ServerFeatureHost } from './server-feature-host.ts';

/**
 * The 2026-07-28 `subscriptions/listen` stream that carries `notifications/resources/list_changed`
 * and `notifications/prompts/list_changed` (a 2025-era server pushes them unasked on its
 * standalone stream). Opened once, after the first listing of resources or prompts, unless
 * long-lived streams are disabled; the notifications reach the client's handlers
 * (`server-requests.ts`) either way.
 */
export class ContentChangeStream {
  readonly #host: ServerFeatureHost;
  #subscription: Promise<ClosableStream | undefined> | undefined;

  constructor(host: ServerFeatureHost) {
    this.#host = host;
  }

  /** Opens the stream on a 2026-07-28 connection, once; a server without it is left alone. */
  open(runContext: unknown): void {
    if (this.#subscription !== undefined || this.#host.streamsDisabled) return;
    if (this.#host.protocolEra() !== 'modern') return;
    this.#subscription = this.#host
      .openLongLived(() =>
        this.#host.use(runContext, (client) =>
          client.listen({ resourcesListChanged: true, promptsListChanged: true }),
        ),
      )
      .catch(() => undefined); // no subscriptions: lists are re-read when the app asks
  }

  /** Ends the stream (the connection is going away). Never rejects. */
  async reset(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = undefined;
    await (await subscription?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
