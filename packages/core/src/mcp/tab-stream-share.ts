import { broadcastChangeChannel, type OAuthChangeChannel } from '../oauth/oauth-change-channel.ts';
import { tabLockManager } from '../internal/web-locks.ts';
import {
  streamLeadLockName,
  TabStreamLead,
  type ClosableStream,
} from './connection/tab-stream-lead.ts';

/** The lists whose `notifications/…/list_changed` the leading tab relays to the others. */
export type SharedListKind = 'tools' | 'resources' | 'prompts';

const LIST_KINDS: readonly SharedListKind[] = ['tools', 'resources', 'prompts'];

/** The `BroadcastChannel` the leading tab relays `list_changed` on. */
const RELAY_CHANNEL = 'switchboard.mcp-list-changed';

/**
 * One server's long-lived streams shared by the tabs of an origin (docs/architecture.md, "Many
 * tabs, one server"): one tab leads ({@link TabStreamLead}) and holds the streams; what it hears
 * of `list_changed` it relays over a `BroadcastChannel` (the channel OAuth uses to tell tabs that
 * credentials changed), and every tab of the same server URL applies it as if its own session had
 * heard it. A tab that becomes leader after another let go applies and relays every kind once:
 * nobody listened meanwhile.
 */
export class TabStreamShare {
  readonly lead: TabStreamLead;
  readonly #channel: OAuthChangeChannel | undefined;
  readonly #url: string;
  readonly #stop: (() => void)[] = [];

  /**
   * A share for the server at `url`, or `undefined` where there are no tabs to share with (no
   * Web Locks: Node, or an old browser).
   *
   * @param apply Applies a list change (re-list tools, move a list version).
   */
  static create(url: URL, apply: (kind: SharedListKind) => void): TabStreamShare | undefined {
    const locks = tabLockManager();
    return locks === undefined
      ? undefined
      : new TabStreamShare(new TabStreamLead(streamLeadLockName(url), locks), url, apply);
  }

  private constructor(lead: TabStreamLead, url: URL, apply: (kind: SharedListKind) => void) {
    this.lead = lead;
    this.#url = url.href;
    this.#channel = broadcastChangeChannel(RELAY_CHANNEL);
    const prefix = `${this.#url} `;
    const stopListening = this.#channel?.listen((message) => {
      if (!message.startsWith(prefix)) return;
      const kind = message.slice(prefix.length) as SharedListKind;
      if (LIST_KINDS.includes(kind)) apply(kind);
    });
    if (stopListening !== undefined) this.#stop.push(stopListening);
    this.#stop.push(
      lead.subscribe((leading, handedOver) => {
        if (!leading || !handedOver) return;
        for (const kind of LIST_KINDS) {
          apply(kind);
          this.#post(kind);
        }
      }),
    );
  }

  /** This tab's own session heard `kind` change: the leader tells the other tabs. */
  heard(kind: SharedListKind): void {
    if (this.lead.leading) this.#post(kind);
  }

  /** See {@link TabStreamLead.openWhenLeading}. */
  openWhenLeading(open: () => Promise<ClosableStream | undefined>): ClosableStream {
    return this.lead.openWhenLeading(open);
  }

  /** Stops relaying and lets go of the lead. Idempotent. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
    this.lead.close();
  }

  #post(kind: SharedListKind): void {
    this.#channel?.post(`${this.#url} ${kind}`);
  }
}
