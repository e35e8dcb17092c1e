import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { OAuthCredentialStore, OAuthServerCredentials } from '../oauth/oauth-stores.ts';
import { inProcessLock } from '../oauth/refresh-lock.ts';

/** Options of {@link FileOAuthCredentialStore}. */
export interface FileOAuthCredentialStoreOptions {
  /** The JSON file; it and its directory (mode 0o700) are created on the first write. */
  path: string;
}

/** The content of the file. */
interface CredentialsFile {
  version: 1;
  servers: { serverUrl: string; credentials: OAuthServerCredentials }[];
}

/**
 * An {@link OAuthCredentialStore} in a JSON file, for Node: `{ "version": 1, "servers":
 * [{ "serverUrl", "credentials" }] }` with one {@link OAuthServerCredentials} per MCP server.
 *
 * Every `update` rewrites the file atomically — a temporary file created with mode 0o600 (owner
 * read/write only: it holds tokens and client secrets of dynamic registrations), fsync, rename —
 * so a crash never leaves a torn file. Updates are serialized within the process (also across
 * instances on the same path); several processes writing the same file at once are not
 * supported. Each call reads the file again, so changes by another process are seen.
 *
 * Failures reject with `SwitchboardError` `storage_error`: the file system error as `cause`, or,
 * for a file that is not valid JSON, no cause at all (a parse error would quote the file, which
 * holds tokens).
 */
export class FileOAuthCredentialStore implements OAuthCredentialStore {
  readonly #path: string;

  constructor(options: FileOAuthCredentialStoreOptions) {
    this.#path = resolve(options.path);
  }

  /** The credentials of the server `key`, or `undefined`. */
  async read(key: string): Promise<OAuthServerCredentials | undefined> {
    const file = await this.#readFile();
    return file.servers.find((entry) => entry.serverUrl === key)?.credentials;
  }

  /** Replaces the credentials of `key` with `change(current)` and rewrites the file. */
  async update(
    key: string,
    change: (current: OAuthServerCredentials | undefined) => OAuthServerCredentials | undefined,
  ): Promise<OAuthServerCredentials | undefined> {
    return await inProcessLock(`switchboard-oauth-file ${this.#path}`, async () => {
      const file = await this.#readFile();
      const current = file.servers.find((entry) => entry.serverUrl === key)?.credentials;
      const next = change(current === undefined ? undefined : structuredClone(current));
      const servers = file.servers.filter((entry) => entry.serverUrl !== key);
      if (next !== undefined) servers.push({ serverUrl: key, credentials: next });
      await this.#writeFile({ version: 1, servers });
      return next;
    });
  }

  /** `"[FileOAuthCredentialStore <path>]"`. */
  toString(): string {
    return `[FileOAuthCredentialStore ${this.#path}]`;
  }

  async #readFile(): Promise<CredentialsFile> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: [] };
      throw this.#failure('read', error);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SwitchboardError(
        'storage_error',
        `The OAuth credentials file ${this.#path} is not valid JSON; delete it to sign in again.`,
      );
    }
    const file = parsed as Partial<CredentialsFile> | null;
    if (
      typeof file !== 'object' ||
      file === null ||
      file.version !== 1 ||
      !Array.isArray(file.servers)
    ) {
      throw new SwitchboardError(
        'storage_error',
        `The OAuth credentials file ${this.#path} is not a version 1 credentials file.`,
      );
    }
    return {
      version: 1,
      servers: file.servers.filter(
        (entry) =>
          typeof entry === 'object' &&
          entry !== null &&
          typeof entry.serverUrl === 'string' &&
          typeof entry.credentials === 'object' &&
          entry.credentials !== null &&
          Array.isArray(entry.credentials.issuers),
      ),
    };
  }

  async #writeFile(file: CredentialsFile): Promise<void> {
    const temporary = `${this.#path}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.#path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw this.#failure('write', error);
    }
  }

  #failure(what: string, error: unknown): SwitchboardError {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    return new SwitchboardError(
      'storage_error',
      `Could not ${what} the OAuth credentials file ${this.#path}${code === undefined ? '' : ` (${code})`}.`,
      { cause: error },
    );
  }
}
