import { createHash } from 'node:crypto';
import { escapeHtml } from '../demo-server/http-support.ts';

/** Path the consent form posts to. */
export const CONSENT_PATH = '/consent';

/** Prefilled in the consent page's username field (and used by `consent: 'auto'`). */
export const DEMO_USERNAME = 'demo-user';

/** What the consent page shows and submits. */
export interface ConsentPageContent {
  /** Opaque id of the pending authorization request (a hidden form field). */
  requestId: string;
  clientId: string;
  /** `client_name` from registration, when the client gave one. */
  clientName?: string;
  scopes: string[];
  /** Where the browser goes after the decision. */
  redirectUri: string;
}

/** The consent page and the headers it must be sent with. */
export interface RenderedConsentPage {
  html: string;
  headers: Record<string, string>;
}

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1f2328}',
  'h1{font-size:1.4rem}',
  'label{display:block;margin:1rem 0}',
  'input{display:block;width:100%;padding:.4rem;font:inherit;box-sizing:border-box}',
  'ul{padding-left:1.2rem}',
  'code{background:#f0f2f4;padding:0 .2rem}',
  '.actions{display:flex;gap:.75rem}',
  'button{font:inherit;padding:.45rem 1.4rem;cursor:pointer}',
  'small{color:#59636e}',
].join('');

/** CSP hash of the inline stylesheet, so the page needs neither `'unsafe-inline'` nor scripts. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The CSP source that lets the form's response redirect to `redirectUri` (Chromium applies
 * `form-action` to the redirects that follow a form submission): the origin for http(s), the
 * scheme for a native app's custom scheme.
 */
function redirectSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/** Where the user is sent back to, as shown to them (the origin, or the whole custom-scheme URI). */
function redirectTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : redirectUri;
}

/**
 * Renders the "Sign in to Switchboard demo" consent page: a username field prefilled with
 * `demo-user`, the client's name, the requested scopes and a POST form with two submit buttons
 * (`decision=allow` / `decision=deny`). Every reflected value is HTML-escaped; the page has no
 * script at all, and its CSP forbids scripts, framing and any form target but this server and
 * the client's redirect URI.
 */
export function renderConsentPage(content: ConsentPageContent): RenderedConsentPage {
  const client = escapeHtml(content.clientName ?? content.clientId);
  const scopes =
    content.scopes.length === 0
      ? '<li>No specific scope (basic access)</li>'
      : content.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Sign in to Switchboard demo</title>',
    `<style>${STYLE}</style></head><body><main>`,
    '<h1>Sign in to Switchboard demo</h1>',
    `<p><strong>${client}</strong> wants to access the Switchboard demo MCP server on your behalf.</p>`,
    `<p>Requested scopes:</p><ul>${scopes}</ul>`,
    `<form method="post" action="${CONSENT_PATH}">`,
    `<input type="hidden" name="request_id" value="${escapeHtml(content.requestId)}">`,
    '<label>Username',
    `<input name="username" value="${DEMO_USERNAME}" autocomplete="username" required></label>`,
    '<div class="actions">',
    '<button type="submit" name="decision" value="allow">Allow</button>',
    '<button type="submit" name="decision" value="deny">Deny</button>',
    '</div></form>',
    `<p><small>You will be sent back to ${escapeHtml(redirectTarget(content.redirectUri))}.`,
    ' This is a local test authorization server: there is no password.</small></p>',
    '</main></body></html>',
  ].join('');
  const policy = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `form-action 'self' ${redirectSource(content.redirectUri)}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    html,
    headers: {
      'content-security-policy': policy,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  };
}
