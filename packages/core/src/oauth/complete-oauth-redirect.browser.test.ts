import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { completeOAuthRedirect } from './complete-oauth-redirect.ts';
import {
  OAUTH_CALLBACK_MESSAGE_TYPE,
  readPendingRedirect,
  writePendingRedirect,
} from './oauth-redirect-channel.ts';

const ORIGIN = 'http://localhost:3000';
const SEARCH = '?code=the-code&state=s1&iss=https%3A%2F%2Fas.example';

function stubCallbackPage(search = SEARCH) {
  const replace = vi.fn();
  vi.stubGlobal('location', {
    href: `${ORIGIN}/oauth-callback.html${search}`,
    origin: ORIGIN,
    search,
    replace,
  });
  return { replace };
}

beforeEach(() => {
  sessionStorage.clear();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('completeOAuthRedirect', () => {
  it('posts the query to a same-origin opener (target origin pinned) and closes the popup', () => {
    const { replace } = stubCallbackPage();
    const opener = { closed: false, location: { origin: ORIGIN }, postMessage: vi.fn() };
    vi.stubGlobal('opener', opener);
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    expect(completeOAuthRedirect()).toBe('posted');
    expect(opener.postMessage).toHaveBeenCalledWith(
      { type: OAUTH_CALLBACK_MESSAGE_TYPE, query: SEARCH },
      ORIGIN,
    );
    expect(close).toHaveBeenCalled();
    expect(replace).not.toHaveBeenCalled();
    expect(sessionStorage.length).toBe(0);
  });

  it('never posts to a cross-origin or closed opener: it stores the answer and goes back', () => {
    for (const opener of [
      {
        closed: false,
        postMessage: vi.fn(),
        get location(): never {
          throw new DOMException('Blocked a frame', 'SecurityError');
        },
      },
      { closed: false, location: { origin: 'https://evil.example' }, postMessage: vi.fn() },
      { closed: true, location: { origin: ORIGIN }, postMessage: vi.fn() },
    ]) {
      sessionStorage.clear();
      const { replace } = stubCallbackPage();
      vi.stubGlobal('opener', opener);
      writePendingRedirect(sessionStorage, 's1', { returnTo: `${ORIGIN}/app#chat` });
      expect(completeOAuthRedirect()).toBe('redirected');
      expect(opener.postMessage).not.toHaveBeenCalled();
      expect(replace).toHaveBeenCalledWith(`${ORIGIN}/app#chat`);
      expect(readPendingRedirect(sessionStorage, 's1')).toEqual({
        returnTo: `${ORIGIN}/app#chat`,
        query: SEARCH,
      });
      vi.unstubAllGlobals();
    }
  });

  it('falls back to options.returnTo, and to "/" for another origin', () => {
    let { replace } = stubCallbackPage();
    expect(completeOAuthRedirect({ returnTo: '/home' })).toBe('redirected');
    expect(replace).toHaveBeenCalledWith(`${ORIGIN}/home`);
    expect(readPendingRedirect(sessionStorage, 's1')).toEqual({ query: SEARCH });

    ({ replace } = stubCallbackPage());
    completeOAuthRedirect({ returnTo: 'https://evil.example/phish' });
    expect(replace).toHaveBeenCalledWith(`${ORIGIN}/`);

    sessionStorage.clear();
    ({ replace } = stubCallbackPage());
    writePendingRedirect(sessionStorage, 's1', { returnTo: 'https://evil.example/' });
    completeOAuthRedirect();
    expect(replace).toHaveBeenCalledWith(`${ORIGIN}/`);
  });

  it('stores nothing for an answer without state', () => {
    const { replace } = stubCallbackPage('?error=access_denied');
    expect(completeOAuthRedirect()).toBe('redirected');
    expect(sessionStorage.length).toBe(0);
    expect(replace).toHaveBeenCalledWith(`${ORIGIN}/`);
  });
});
