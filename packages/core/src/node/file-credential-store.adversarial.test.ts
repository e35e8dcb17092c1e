import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { OAuthServerCredentials } from '../oauth/oauth-stores.ts';
import { FileOAuthCredentialStore } from './file-credential-store.ts';

const SECRET = 'refresh-token-secret-do-not-leak';
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchboard-file-store-adv-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const credentials: OAuthServerCredentials = {
  issuers: [
    {
      issuer: 'https://as.example',
      tokens: {
        tokens: { access_token: 'a', token_type: 'Bearer', refresh_token: SECRET },
        savedAt: 1,
      },
    },
  ],
};

describe('FileOAuthCredentialStore (adversarial)', () => {
  it('writes 0o600 (in a 0o700 directory) even under umask 0, and over a world-readable file', async () => {
    const previous = process.umask(0);
    try {
      const path = join(directory, 'nested', 'oauth.json');
      await new FileOAuthCredentialStore({ path }).update(
        'https://mcp.example/mcp',
        () => credentials,
      );
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(directory, 'nested'))).mode & 0o777).toBe(0o700);

      const loose = join(directory, 'loose.json');
      await writeFile(loose, JSON.stringify({ version: 1, servers: [] }));
      await chmod(loose, 0o644);
      await new FileOAuthCredentialStore({ path: loose }).update(
        'https://mcp.example/mcp',
        () => credentials,
      );
      expect((await stat(loose)).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('reports a truncated file without quoting it, and never overwrites it on update', async () => {
    const path = join(directory, 'oauth.json');
    const store = new FileOAuthCredentialStore({ path });
    await store.update('https://mcp.example/mcp', () => credentials);
    const whole = await readFile(path, 'utf8');
    await writeFile(path, whole.slice(0, whole.indexOf(SECRET) + 10)); // torn mid-secret
    const read = await store.read('https://mcp.example/mcp').catch((failure: unknown) => failure);
    const update = await store
      .update('https://other.example/mcp', () => credentials)
      .catch((failure: unknown) => failure);
    for (const error of [read, update]) {
      expect(isSwitchboardError(error, 'storage_error')).toBe(true);
      expect(inspect(error, { depth: Infinity })).not.toContain(SECRET.slice(0, 10));
    }
    // The user's file is left for them to inspect or delete, not silently replaced.
    expect(await readFile(path, 'utf8')).toBe(whole.slice(0, whole.indexOf(SECRET) + 10));
  });
});
