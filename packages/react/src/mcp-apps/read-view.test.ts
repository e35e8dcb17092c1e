import { describe, expect, it } from 'vitest';
import { proxyOriginProblem } from './read-view.ts';

describe('proxyOriginProblem', () => {
  const host = 'http://127.0.0.1:5173';

  it('accepts a proxy on another origin (another port counts)', () => {
    expect(proxyOriginProblem('http://127.0.0.1:5174/sandbox.html', host)).toBeUndefined();
    expect(proxyOriginProblem(new URL('https://sandbox.example.com/p.html'), host)).toBeUndefined();
  });

  it('refuses the host’s own origin, relative URLs included', () => {
    expect(proxyOriginProblem('http://127.0.0.1:5173/sandbox.html', host)).toMatch(/own origin/);
    expect(proxyOriginProblem('/sandbox.html', host)).toMatch(/own origin/);
  });

  it('refuses non-http(s) proxies', () => {
    expect(proxyOriginProblem('data:text/html,<p>x', host)).toMatch(/http/);
    expect(proxyOriginProblem('javascript:alert(1)', host)).toMatch(/http/);
  });
});
