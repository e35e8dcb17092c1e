import { describe, expect, it } from 'vitest';
import { buildViewCsp, sanitizeCspDomains, withCspMeta } from './view-csp.ts';

const directives = (policy: string): Map<string, string> =>
  new Map(
    policy.split('; ').map((directive) => {
      const [name = '', ...sources] = directive.split(' ');
      return [name, sources.join(' ')];
    }),
  );

describe('buildViewCsp', () => {
  it('is the spec default when nothing is declared', () => {
    for (const declared of [undefined, null, {}, 'https://a.example', []]) {
      const policy = directives(buildViewCsp(declared));
      expect(policy.get('default-src')).toBe("'none'");
      expect(policy.get('script-src')).toBe("'self' 'unsafe-inline'");
      expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'");
      expect(policy.get('img-src')).toBe("'self' data:");
      expect(policy.get('media-src')).toBe("'self' data:");
      expect(policy.get('connect-src')).toBe("'none'");
      expect(policy.get('frame-src')).toBe("'none'");
      expect(policy.get('base-uri')).toBe("'self'");
      expect(policy.get('object-src')).toBe("'none'");
      expect(policy.get('form-action')).toBe("'none'");
    }
  });

  it('adds declared origins to their directives', () => {
    const policy = directives(
      buildViewCsp({
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://*.cdn.example.com'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example.com'],
      }),
    );
    expect(policy.get('connect-src')).toBe('https://api.example.com wss://live.example.com');
    expect(policy.get('script-src')).toBe("'self' 'unsafe-inline' https://*.cdn.example.com");
    expect(policy.get('img-src')).toBe("'self' data: https://*.cdn.example.com");
    expect(policy.get('font-src')).toBe("'self' https://*.cdn.example.com");
    expect(policy.get('frame-src')).toBe('https://www.youtube.com');
    expect(policy.get('base-uri')).toBe('https://base.example.com');
    expect(policy.get('default-src')).toBe("'none'");
  });

  it('drops every entry that could widen the policy', () => {
    const hostile = [
      '*',
      'https://*',
      "'unsafe-eval'",
      "'self'",
      'data:',
      'blob:',
      'javascript:alert(1)',
      'https://a.example; script-src *',
      'https://a.example, https://b.example',
      'https://a.example https://b.example',
      'https://a.example/path',
      'https://user@a.example',
      'ftp://a.example',
      'a.example',
      '',
      42,
      null,
    ];
    const policy = buildViewCsp({ connectDomains: hostile, resourceDomains: hostile });
    const parsed = directives(policy);
    expect(parsed.get('connect-src')).toBe("'none'");
    expect(parsed.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(policy).not.toContain('unsafe-eval');
    expect(policy.split('; ')).toHaveLength(11);
  });

  it('keeps a trailing slash-free, lower-cased, de-duplicated, bounded list', () => {
    const many = Array.from({ length: 40 }, (_, index) => `https://h${index}.example`);
    const policy = directives(
      buildViewCsp({
        connectDomains: ['HTTPS://API.example.com/', 'https://api.example.com', ...many],
      }),
    );
    const sources = (policy.get('connect-src') ?? '').split(' ');
    expect(sources[0]).toBe('https://api.example.com');
    expect(sources).toHaveLength(32);
  });
});

describe('sanitizeCspDomains', () => {
  it('returns what the policy kept, per list', () => {
    expect(
      sanitizeCspDomains({
        connectDomains: ['https://api.example.com', '*'],
        resourceDomains: ["'unsafe-inline'"],
      }),
    ).toEqual({ connectDomains: ['https://api.example.com'] });
  });
});

describe('withCspMeta', () => {
  it('puts the policy first, after a doctype', () => {
    const html = withCspMeta(
      '<!DOCTYPE html><html><head><script>x()</script>',
      "default-src 'none'",
    );
    expect(html).toBe(
      `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><html><head><script>x()</script>`,
    );
    expect(withCspMeta('<p>hi</p>', "a 'b'")).toMatch(
      /^<meta http-equiv="Content-Security-Policy"/,
    );
  });

  it('escapes quotes so the policy cannot end its attribute', () => {
    expect(withCspMeta('', 'a"b')).toContain('content="a&quot;b"');
  });

  it('applies in a real parser before the document’s own scripts', () => {
    const doc = new DOMParser().parseFromString(
      withCspMeta(
        '<!doctype html><html><head><script>1</script></head></html>',
        "default-src 'none'",
      ),
      'text/html',
    );
    expect(doc.head.firstElementChild?.getAttribute('http-equiv')).toBe('Content-Security-Policy');
  });
});
