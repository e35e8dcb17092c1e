/**
 * Browser API types for public signatures, written so that a consumer compiling without the DOM
 * lib (a Node-only app: `lib: ["ES2023"]`, `types: ["node"]`) still type-checks our `.d.ts`.
 * Each alias is the DOM type where the consumer has the DOM lib, and a plain `object` where not
 * (those options only matter in a browser, or with a polyfill such as fake-indexeddb).
 */

/** `IDBFactory` (`globalThis.indexedDB`'s type) when the DOM lib is present. */
export type IndexedDbFactory = typeof globalThis extends { indexedDB: infer Factory }
  ? Factory
  : object;

/** `Storage` (`globalThis.sessionStorage`'s type) when the DOM lib is present. */
export type WebStorage = typeof globalThis extends { sessionStorage: infer Storage }
  ? Storage
  : object;

/** `LockManager` (`navigator.locks`' type) when the DOM lib is present. */
export type WebLockManager = typeof globalThis extends { navigator: { locks: infer Locks } }
  ? Locks
  : object;
