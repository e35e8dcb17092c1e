// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { describeUrl } from './describe-url.ts';

describe('describeUrl', () => {
  it('splits an https URL into scheme, host and the rest', () => {
    expect(describeUrl('https://auth.example.com:8443/connect?state=1#top')).toEqual({
      href: 'https://auth.example.com:8443/connect?state=1#top',
      scheme: 'https://',
      userinfo: '',
      host: 'auth.example.com:8443',
      rest: '/connect?state=1#top',
      openable: true,
      secure: true,
      local: false,
      punycode: false,
    });
  });

  it('flags plain http, local hosts, punycode hosts and credentials before the host', () => {
    expect(describeUrl('http://example.com/')).toMatchObject({ secure: false, local: false });
    for (const local of [
      'http://localhost:3000/',
      'http://127.0.0.1/x',
      'http://[::1]/',
      'http://app.localhost/',
    ]) {
      expect(describeUrl(local)).toMatchObject({ openable: true, secure: false, local: true });
    }
    expect(describeUrl('https://xn--pple-43d.com/login')).toMatchObject({
      host: 'xn--pple-43d.com',
      punycode: true,
    });
    // A Unicode host is normalised to punycode, so it is flagged too.
    expect(describeUrl('https://аpple.com/')).toMatchObject({ punycode: true });
    expect(describeUrl('https://bank.com@evil.example/')).toMatchObject({
      userinfo: 'bank.com@',
      host: 'evil.example',
      rest: '/',
    });
  });

  it('marks other schemes as not openable and rejects what is not an absolute URL', () => {
    expect(describeUrl('javascript:alert(1)')).toMatchObject({
      scheme: 'javascript:',
      host: '',
      rest: 'alert(1)',
      openable: false,
    });
    expect(describeUrl('data:text/html,<b>x</b>')).toMatchObject({ openable: false });
    expect(describeUrl('/relative/path')).toBeUndefined();
    expect(describeUrl(undefined)).toBeUndefined();
  });
});
