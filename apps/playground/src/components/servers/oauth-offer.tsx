/**
 * The offer to turn OAuth sign-in on, for a server added without it that asks for a sign-in
 * (HTTP 401 or `needs-auth`). Turning it on replaces the server with one that can sign in.
 */
export function OAuthOffer({ onUseOAuth }: { onUseOAuth: () => void }) {
  return (
    <div className="warning-box" data-testid="server-offer-oauth">
      <p>
        <strong>This server asks you to sign in.</strong> Its tools are available once you do.
      </p>
      <button
        type="button"
        className="button button--small"
        data-testid="server-use-oauth"
        onClick={onUseOAuth}
      >
        Use OAuth sign-in
      </button>
    </div>
  );
}
