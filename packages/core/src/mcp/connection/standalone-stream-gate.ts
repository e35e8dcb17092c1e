import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { TabStreamLead } from './tab-stream-lead.ts';

/** How long the stream stays open after the last reason for it ended, in ms. */
const LINGER_MS = 1_000;
/** First wait before opening the stream again after it broke, in ms (doubles, up to the cap). */
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * The standalone GET stream of one 2025-era session, held on the network only while it is needed
 * (docs/architecture.md, "Many tabs, one server"):
 * - while this tab leads the server's streams ({@link TabStreamLead}): the leader hears
 *   `list_changed` for every tab and relays it;
 * - while a request of this session is in flight: a server may push a call's `elicitation/create`
 *   on the GET stream instead of the POST's (the elicitation router gives it to the session's
 *   one running call);
 * - while the session has resource subscriptions (`resources/subscribe`): their
 *   `notifications/resources/updated` are for this session only.
 *
 * The SDK opens the standalone stream once, after `initialize`, and has no way to close and
 * reopen it. So it gets one local `200 text/event-stream` answer at once, whose body this gate
 * feeds from the network stream whenever one is open. Whole events only are passed on, without
 * their `id` (the SDK would otherwise resume with `Last-Event-ID`, straight to the network); the
 * gate keeps the last id itself and resumes with it, so a server with an event store replays what
 * came while the stream was closed. A `405` means the server offers no stream: the gate stops.
 * Another refusal stops it until the next time it is needed.
 */
export class StandaloneStreamGate {
  readonly #lead: TabStreamLead;
  readonly #network: typeof fetch;
  #stopLead: (() => void) | undefined;
  #busy = 0;
  readonly #subscriptions = new Set<string>();
  /** The SDK's side: where events go, and the request the stream is opened with. */
  #consumer:
    | {
        controller: ReadableStreamDefaultController<Uint8Array>;
        url: string;
        headers: Headers;
      }
    | undefined;
  #open: AbortController | undefined;
  #lastEventId: string | undefined;
  #serverRetryMs: number | undefined;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #lingerTimer: ReturnType<typeof setTimeout> | undefined;
  /** The server answered 405: it has no standalone stream. */
  #unavailable = false;
  /** The last open was refused; try again only once the stream was not needed for a while. */
  #refused = false;
  #closed = false;
  readonly #encoder = new TextEncoder();

  /**
   * @param lead This tab's lead over the server's streams.
   * @param network The fetch the stream is opened with (the caller's headers applied).
   */
  constructor(lead: TabStreamLead, network: typeof fetch) {
    this.#lead = lead;
    this.#network = network;
  }

  /** Notes a request in flight (until the returned function is called; idempotent). */
  noteRequest(): () => void {
    this.#busy += 1;
    this.#update();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#busy -= 1;
      this.#update();
    };
  }

  /** Notes a `resources/subscribe` / `resources/unsubscribe` the session sends. */
  noteSubscription(method: string, uri: string): void {
    if (method === 'resources/subscribe') this.#subscriptions.add(uri);
    else if (method === 'resources/unsubscribe') this.#subscriptions.delete(uri);
    this.#update();
  }

  /**
   * The SDK's standalone GET (`headers` already carry the caller's): answered at once with a
   * local event stream that stays open until `signal` aborts (the transport closes).
   */
  answer(url: string, headers: Headers, signal: AbortSignal | undefined): Response {
    const previous = this.#consumer;
    this.#close();
    try {
      previous?.controller.close();
    } catch {
      // Already closed or cancelled.
    }
    this.#closed = false;
    this.#stopLead = this.#lead.subscribe(() => this.#update());
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#consumer = { controller, url, headers };
      },
      cancel: () => this.#close(),
    });
    signal?.addEventListener(
      'abort',
      () => {
        const consumer = this.#consumer;
        this.#close();
        try {
          consumer?.controller.close();
        } catch {
          // Already closed or cancelled.
        }
      },
      { once: true },
    );
    this.#update();
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
    });
  }

  get #needed(): boolean {
    return this.#lead.leading || this.#busy > 0 || this.#subscriptions.size > 0;
  }

  #update(): void {
    if (this.#closed || this.#consumer === undefined || this.#unavailable) return;
    if (this.#needed) {
      clearTimeout(this.#lingerTimer);
      this.#lingerTimer = undefined;
      if (this.#open === undefined && this.#retryTimer === undefined && !this.#refused) {
        void this.#connect();
      }
      return;
    }
    this.#refused = false;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (this.#open !== undefined && this.#lingerTimer === undefined) {
      // A server may still say something about the request that just ended.
      this.#lingerTimer = setTimeout(() => {
        this.#lingerTimer = undefined;
        if (this.#needed) return;
        this.#open?.abort();
        this.#open = undefined;
      }, LINGER_MS);
    }
  }

  async #connect(): Promise<void> {
    const consumer = this.#consumer;
    if (consumer === undefined) return;
    const open = new AbortController();
    this.#open = open;
    const headers = new Headers(consumer.headers);
    if (this.#lastEventId !== undefined) headers.set('last-event-id', this.#lastEventId);
    let response: Response;
    try {
      response = await this.#network(consumer.url, {
        method: 'GET',
        headers,
        signal: open.signal,
      });
    } catch {
      this.#ended(open);
      return;
    }
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    if (!response.ok || response.body === null || !type.includes('text/event-stream')) {
      await response.body?.cancel().catch(() => undefined);
      if (this.#open === open) this.#open = undefined;
      if (response.status === 405) this.#unavailable = true;
      else this.#refused = true;
      return;
    }
    this.#attempt = 0;
    const parser = createParser({
      onEvent: (event) => this.#pass(event),
      onRetry: (milliseconds) => {
        this.#serverRetryMs = milliseconds;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // Broken or aborted: handled below.
    }
    this.#ended(open);
  }

  /** The network stream `open` ended: open it again after a wait while it is still needed. */
  #ended(open: AbortController): void {
    if (this.#open !== open) return; // closed on purpose (not needed, or the gate closed)
    this.#open = undefined;
    if (this.#closed || !this.#needed) return;
    const delay = this.#serverRetryMs ?? Math.min(RETRY_MS * 2 ** this.#attempt, MAX_RETRY_MS);
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#update();
    }, delay);
  }

  #pass(event: EventSourceMessage): void {
    if (event.id !== undefined) this.#lastEventId = event.id;
    const lines = event.event === undefined ? [] : [`event: ${event.event}`];
    for (const line of event.data.split('\n')) lines.push(`data: ${line}`);
    try {
      this.#consumer?.controller.enqueue(this.#encoder.encode(`${lines.join('\n')}\n\n`));
    } catch {
      // The SDK stopped reading.
    }
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#consumer = undefined;
    this.#stopLead?.();
    this.#stopLead = undefined;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#lingerTimer);
    this.#open?.abort();
    this.#open = undefined;
  }
}
