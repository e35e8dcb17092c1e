import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { SecretScrubber } from '../internal/secret-scrubber.ts';
import { McpAuthorization } from './mcp-authorization.ts';

const where = 'MCP server "s" (http://127.0.0.1/mcp)';
const url = new URL('http://127.0.0.1/mcp');

/** A provider that keeps discovery state and records what it was given. */
function recordingProvider() {
  const saved: OAuthDiscoveryState[] = [];
  const redirected: URL[] = [];
  const provider = {
    redirectUrl: 'http://127.0.0.1/callback',
    clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] },
    clientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (authorizationUrl: URL) => void redirected.push(authorizationUrl),
    saveCodeVerifier: () => undefined,
    codeVerifier: () => 'verifier',
    saveDiscoveryState: (state: OAuthDiscoveryState) => void saved.push(state),
    discoveryState: () => undefined,
  } as unknown as OAuthClientProvider;
  return { provider, saved, redirected };
}

function authorization(provider?: OAuthClientProvider): McpAuthorization {
  return new McpAuthorization({ provider, where, url, scrubber: new SecretScrubber() });
}

describe('McpAuthorization', () => {
  it('records the authorization URL the SDK redirects to, until dropped', async () => {
    const { provider, redirected } = recordingProvider();
    const auth = authorization(provider);
    const target = new URL('https://as.example/authorize?state=s');

    await auth.provider?.redirectToAuthorization(target);

    expect(redirected).toEqual([target]);
    expect(auth.pendingUrl).toBe(target);
    const failure = auth.withPendingUrl(new SwitchboardError('needs_auth', '401'), undefined);
    expect(failure.details).toEqual({ authorizationUrl: target.href });
    expect(auth.withPendingUrl(new SwitchboardError('timeout', 't'), undefined).code).toBe(
      'timeout',
    );
    auth.dropPending();
    expect(auth.pendingUrl).toBeUndefined();
  });

  it.each([
    { methods: ['S256'], refused: false },
    { methods: ['plain', 'S256'], refused: false },
    { methods: ['plain'], refused: true },
    { methods: undefined, refused: true },
  ])('PKCE methods $methods: refused $refused', async ({ methods, refused }) => {
    const { provider, saved } = recordingProvider();
    const state = {
      authorizationServerUrl: 'https://as.example',
      authorizationServerMetadata: {
        issuer: 'https://as.example',
        ...(methods === undefined ? {} : { code_challenge_methods_supported: methods }),
      },
    } as unknown as OAuthDiscoveryState;

    const saving = Promise.resolve().then(() =>
      authorization(provider).provider?.saveDiscoveryState?.(state),
    );

    if (refused) {
      await expect(saving).rejects.toMatchObject({ code: 'invalid_response' });
      expect(saved).toEqual([]);
    } else {
      await saving;
      expect(saved).toEqual([state]);
    }
  });

  it('refuses the OAuth flows without a (interactive) provider', async () => {
    const none = authorization();
    expect(none.provider).toBeUndefined();
    await expect(none.finish('code')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(none.signOut()).rejects.toMatchObject({ code: 'invalid_input' });
    const steps = { connect: async () => undefined, finish: async () => undefined };
    await expect(none.authorize(steps)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(none.authorizing).toBe(false);
    await expect(authorization(recordingProvider().provider).signOut()).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
