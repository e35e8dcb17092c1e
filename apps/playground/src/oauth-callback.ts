/**
 * The script of the OAuth callback page (oauth-callback.html), the redirect URI of every server
 * the playground signs in to with OAuth (see server-registry.ts). `completeOAuthRedirect()`
 * hands the authorization server's answer back to the playground: to the page that opened this
 * popup (a `postMessage` on this origin, then the popup closes), or, when the popup was blocked
 * and the whole page went to the authorization server, through `sessionStorage` and back to the
 * playground (`location.replace`, so the URL with the code leaves the history). The code is
 * never shown, logged or stored anywhere else; the provider checks `state` and redeems it.
 */
import { completeOAuthRedirect } from '@switchboard/core';

const outcome = completeOAuthRedirect({ returnTo: '/' });

// A popup normally closes itself at once; if the browser kept it open, say what to do.
const status = document.getElementById('oauth-callback-status');
if (status !== null) {
  status.textContent =
    outcome === 'posted'
      ? 'Signed in. You can close this window.'
      : 'Going back to the playground…';
}
