/** What replaces a secret in scrubbed text. */
export const REDACTED = '[redacted]';
/** Values shorter than this are not treated as secrets: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;
/** Most secrets remembered; the oldest are forgotten first (one per user and header, typically). */
const MAX_SECRETS = 1_000;
/** `Bearer abc`, `Basic abc`, `DPoP abc`: the credential after an authorization scheme. */
const SCHEME = /^[A-Za-z][A-Za-z0-9._~+-]*\s+(\S.*)$/;

/**
 * Remembers the secret values a client sent (configured header values, OAuth access tokens) and
 * removes them from text that came back from a server, before that text reaches an error, a
 * chunk, a history item or a model. Values under 8 characters are ignored; for a value with an
 * authorization scheme (`Bearer …`) the credential alone is scrubbed too.
 */
export class SecretScrubber {
  readonly #secrets = new Map<string, true>();
  /** Longest first, so that a whole value is replaced before a part of it. */
  #ordered: string[] | undefined;

  /** Remembers `value` (and its credential, after an authorization scheme) as a secret. */
  add(value: string): void {
    const credential = SCHEME.exec(value)?.[1];
    for (const candidate of credential === undefined ? [value] : [value, credential]) {
      const secret = candidate.trim();
      if (secret.length < MIN_SECRET_LENGTH) continue;
      if (this.#secrets.has(secret)) {
        this.#secrets.delete(secret); // most recently used last
      } else {
        this.#ordered = undefined;
      }
      this.#secrets.set(secret, true);
      while (this.#secrets.size > MAX_SECRETS) {
        const oldest = this.#secrets.keys().next().value;
        if (oldest === undefined) break;
        this.#secrets.delete(oldest);
        this.#ordered = undefined;
      }
    }
  }

  /** `text` with every remembered secret replaced by `[redacted]`. */
  scrub(text: string): string {
    if (this.#secrets.size === 0 || text === '') return text;
    this.#ordered ??= [...this.#secrets.keys()].sort((a, b) => b.length - a.length);
    let scrubbed = text;
    for (const secret of this.#ordered) {
      if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
    }
    return scrubbed;
  }

  /**
   * `value` with every string in it (object keys and values, array items, at any depth) scrubbed;
   * the same object when nothing had to change.
   */
  scrubDeep<T>(value: T): T {
    if (this.#secrets.size === 0) return value;
    return this.#deep(value, 0) as T;
  }

  #deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) {
      let changed = false;
      const items = value.map((item: unknown) => {
        const next = this.#deep(item, depth + 1);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? items : value;
    }
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const nextKey = this.scrub(key);
      const next = this.#deep(item, depth + 1);
      if (next !== item || nextKey !== key) changed = true;
      return [nextKey, next] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
}
