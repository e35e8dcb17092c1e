import { describeError } from '@switchboard/core';
import type { UseMcpServerStatusResult } from '@switchboard/react';
import { useState } from 'react';
import { describeSignInFailure } from '../../sign-in-failure.ts';
import { SignedInAccount } from './signed-in-account.tsx';

/** What the sign-in box is doing. */
type SignInPhase = 'idle' | 'signing-in' | 'redirecting' | 'signing-out';

/**
 * OAuth sign-in of one server: with status `needs-auth`, why and a "Connect" button (the
 * popup opens straight from the click; a blocked popup becomes a full-page redirect); once
 * signed in, the account and "Sign out". Failures (popup closed, access denied) are shown here,
 * and Connect stays offered. No token is ever shown.
 */
export function ServerSignIn({
  state,
  onSignOut,
}: {
  state: UseMcpServerStatusResult;
  /** Signs out, then shows the server asking for a sign-in again. */
  onSignOut: () => Promise<void>;
}) {
  const [phase, setPhase] = useState<SignInPhase>('idle');
  const [failure, setFailure] = useState<string | undefined>();
  const account = state.account;
  const signedIn = account?.signedIn === true;

  const connect = () => {
    setFailure(undefined);
    setPhase('signing-in');
    // Called straight from the click, nothing awaited before: the popup needs the activation.
    state.authorize().then(
      (outcome) => setPhase(outcome === 'redirected' ? 'redirecting' : 'idle'),
      (error: unknown) => {
        setPhase('idle');
        setFailure(describeSignInFailure(error));
      },
    );
  };
  const signOut = () => {
    setFailure(undefined);
    setPhase('signing-out');
    onSignOut().then(
      () => setPhase('idle'),
      (error: unknown) => {
        setPhase('idle');
        setFailure(`Could not sign out. ${describeError(error).sentence}`);
      },
    );
  };

  return (
    <div className="sign-in" data-testid="server-auth" data-phase={phase}>
      {state.status === 'needs-auth' && (
        <div className="sign-in__needed" data-testid="server-needs-auth">
          <strong>
            {signedIn
              ? 'This server needs you to sign in again'
              : 'This server needs you to sign in'}
          </strong>
          <p>
            {signedIn
              ? 'It asks for more access than you granted, or no longer accepts your sign-in.'
              : 'Its tools are available once you sign in (OAuth).'}
          </p>
          {phase === 'redirecting' ? (
            <p data-testid="server-auth-redirecting">Taking you to the sign-in page…</p>
          ) : (
            <button
              type="button"
              className="button button--small"
              data-testid="server-connect"
              disabled={phase !== 'idle'}
              onClick={connect}
            >
              {phase === 'signing-in' ? 'Waiting for sign-in…' : 'Connect'}
            </button>
          )}
        </div>
      )}
      {signedIn ? (
        <SignedInAccount
          account={account}
          signingOut={phase === 'signing-out'}
          disabled={phase !== 'idle'}
          onSignOut={signOut}
        />
      ) : (
        state.status !== 'needs-auth' && (
          <p className="muted" data-testid="server-account" data-signed-in="false">
            OAuth: not signed in.
          </p>
        )
      )}
      {failure !== undefined && (
        <p className="problem" role="alert" data-testid="server-auth-failure">
          {failure}
        </p>
      )}
    </div>
  );
}
