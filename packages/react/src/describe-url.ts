/** A URL split for display, with the facts a consent dialog warns about. */
export interface UrlDescription {
  /** The normalised URL (what would be opened). */
  href: string;
  /** `https://`, `http://`, `javascript:` … */
  scheme: string;
  /** `user:password@` when the URL carries credentials before the host (a phishing trick), else ''. */
  userinfo: string;
  /** Host name and port (punycode form for international names); '' when there is none. */
  host: string;
  /** Path, query and fragment. */
  rest: string;
  /** `http:` or `https:`: the only schemes that may be opened. */
  openable: boolean;
  /** `https:`. */
  secure: boolean;
  /** localhost, `*.localhost`, 127.0.0.0/8 or [::1]. */
  local: boolean;
  /** A host label starts with `xn--` (an internationalised name that may imitate another). */
  punycode: boolean;
}

/**
 * Parses a server-provided URL for display (scheme / host / rest) and safety checks. Pure; never
 * fetches anything.
 *
 * @returns undefined when `raw` is missing or not an absolute URL.
 */
export function describeUrl(raw: string | undefined): UrlDescription | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const href = url.href;
  const scheme = href.startsWith(`${url.protocol}//`) ? `${url.protocol}//` : url.protocol;
  const userinfo =
    url.username === '' && url.password === ''
      ? ''
      : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`;
  let host = url.host;
  let rest = href.slice(scheme.length + userinfo.length + host.length);
  if (!href.startsWith(scheme + userinfo + host)) {
    host = '';
    rest = href.slice(scheme.length);
  }
  const hostname = url.hostname.toLowerCase();
  return {
    href,
    scheme,
    userinfo,
    host,
    rest,
    openable: url.protocol === 'http:' || url.protocol === 'https:',
    secure: url.protocol === 'https:',
    local:
      hostname === 'localhost' ||
      hostname.endsWith('.localhost') ||
      /^127(?:\.\d{1,3}){3}$/.test(hostname) ||
      hostname === '[::1]',
    punycode: hostname.split('.').some((label) => label.startsWith('xn--')),
  };
}
