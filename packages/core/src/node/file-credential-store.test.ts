import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { OAuthServerCredentials } from '../oauth/oauth-stores.ts';
import { FileOAuthCredentialStore } from './file-credential-store.ts';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchboard-oauth-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const credentials = (accessToken: string): OAuthServerCredentials => ({
  issuers: [
    {
      issuer: 'https://as.example',
      tokens: { tokens: { access_token: accessToken, token_type: 'Bearer' }, savedAt: 1 },
    },
  ],
  latestIssuer: 'https://as.example',
});

describe('FileOAuthCredentialStore', () => {
  it('persists records per server across instances, in a 0o600 file, atomically', async () => {
    const path = join(directory, 'nested', 'oauth.json');
    const store = new FileOAuthCredentialStore({ path });
    expect(await store.read('https://a.example/mcp')).toBeUndefined();
    await store.update('https://a.example/mcp', () => credentials('a'));
    await store.update('https://b.example/mcp', () => credentials('b'));
    const again = new FileOAuthCredentialStore({ path });
    expect(await again.read('https://a.example/mcp')).toEqual(credentials('a'));
    expect(await again.read('https://b.example/mcp')).toEqual(credentials('b'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(directory, 'nested'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(directory, 'nested'))).toEqual(['oauth.json']);
    const file = JSON.parse(await readFile(path, 'utf8')) as { version: number };
    expect(file.version).toBe(1);
    await again.update('https://a.example/mcp', () => undefined);
    expect(await store.read('https://a.example/mcp')).toBeUndefined();
    expect(await store.read('https://b.example/mcp')).toEqual(credentials('b'));
  });

  it('serializes concurrent updates, also across instances on one path', async () => {
    const path = join(directory, 'oauth.json');
    const one = new FileOAuthCredentialStore({ path });
    const two = new FileOAuthCredentialStore({ path });
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? one : two).update(`https://s${index}.example/mcp`, () =>
          credentials(`t${index}`),
        ),
      ),
    );
    for (let index = 0; index < 10; index += 1) {
      expect(await one.read(`https://s${index}.example/mcp`)).toEqual(credentials(`t${index}`));
    }
  });

  it('reports a corrupt file without quoting it (no token in message or cause)', async () => {
    const path = join(directory, 'oauth.json');
    await writeFile(
      path,
      '{"version":1,"servers":[{"access_token":"access-token-secret-9"',
      'utf8',
    );
    const store = new FileOAuthCredentialStore({ path });
    const error = await store.read('https://a.example/mcp').catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'storage_error')).toBe(true);
    expect((error as Error).message).not.toContain('secret');
    expect((error as Error).cause).toBeUndefined();
    await writeFile(path, '{"version":2}', 'utf8');
    await expect(store.read('x')).rejects.toMatchObject({ code: 'storage_error' });
  });

  it('reports file system failures as storage_error', async () => {
    const path = join(directory, 'not-a-directory');
    await writeFile(path, 'x', 'utf8');
    const store = new FileOAuthCredentialStore({ path: join(path, 'oauth.json') });
    await expect(store.update('x', () => credentials('a'))).rejects.toMatchObject({
      code: 'storage_error',
    });
    expect(String(store)).toContain('FileOAuthCredentialStore');
  });
});
