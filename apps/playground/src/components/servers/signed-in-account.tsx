import type { OAuthAccountState } from '@switchboard/core';

/**
 * The account a server is signed in with: the issuer's host, the granted scope, until when the
 * access token lasts, and "Sign out". Never a token.
 */
export function SignedInAccount({
  account,
  signingOut,
  disabled,
  onSignOut,
}: {
  account: OAuthAccountState;
  signingOut: boolean;
  /** A sign-in or sign-out is under way. */
  disabled: boolean;
  onSignOut: () => void;
}) {
  return (
    <div className="sign-in__account" data-testid="server-account" data-signed-in="true">
      <p>
        <strong>Signed in</strong>
        {account.issuer !== undefined && (
          <>
            {' '}
            at <code data-testid="server-account-issuer">{issuerHost(account.issuer)}</code>
          </>
        )}
      </p>
      <p className="muted">
        Scope:{' '}
        <code data-testid="server-account-scope">
          {account.scope === undefined || account.scope === '' ? '(none)' : account.scope}
        </code>
        {account.expiresAt !== undefined && (
          <>
            {' '}
            · access token until {new Date(account.expiresAt).toLocaleTimeString()}, then renewed
            when a refresh token allows
          </>
        )}
      </p>
      <button
        type="button"
        className="button button--secondary button--small"
        data-testid="server-sign-out"
        disabled={disabled}
        onClick={onSignOut}
      >
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}

/** The host of an issuer URL (the whole string when it is not a URL). */
function issuerHost(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}
