import { SwitchboardError } from '@switchboard/core';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorNotice } from './error-notice.tsx';

describe('ErrorNotice', () => {
  afterEach(() => {
    cleanup();
  });

  it('shows one sentence, and the facts only inside a collapsed Details', () => {
    const error = new SwitchboardError(
      'http_status',
      'MCP server "demo" answered HTTP 400 Bad Request: {"jsonrpc":"2.0"} hint',
      {
        details: { status: 400, hint: 'expose-mcp-session-id', body: '{"jsonrpc":"2.0"}' },
        cause: new Error('SSE fallback: HTTP 405'),
      },
    );
    const { container } = render(
      <ErrorNotice error={error} server="demo" title="Could not use this server">
        <button type="button">Reconnect</button>
      </ErrorNotice>,
    );
    const notice = screen.getByRole('alert');
    expect(notice.getAttribute('data-code')).toBe('http_status');
    expect(container.querySelector('.sb-error-title')?.textContent).toBe(
      'Could not use this server',
    );
    expect(container.querySelector('.sb-error-sentence')?.textContent).toBe(
      '"demo" does not let this page read its session id (CORS). The server must send ' +
        '"Access-Control-Expose-Headers: Mcp-Session-Id" on its responses.',
    );
    const details = container.querySelector('details');
    expect(details?.open).toBe(false);
    expect(details?.querySelector('summary')?.textContent).toBe('Details');
    const facts = [...(details?.querySelectorAll('dt') ?? [])].map((term) => [
      term.textContent,
      term.nextElementSibling?.textContent,
    ]);
    expect(facts).toEqual([
      ['Code', 'http_status'],
      ['Server', 'demo'],
      ['HTTP status', '400'],
      ['Response', '{"jsonrpc":"2.0"}'],
      ['Message', error.message],
      ['Cause', 'SSE fallback: HTTP 405'],
    ]);
    expect(screen.getByRole('button', { name: 'Reconnect' })).toBeTruthy();
  });

  it('lists rejected fields instead of the dump, and is not an alert inside a record', () => {
    const dump = JSON.stringify([
      { code: 'invalid_format', path: ['date'], message: 'Invalid ISO date' },
      {
        code: 'too_small',
        path: ['name'],
        message: 'Too small: expected string to have >=1 characters',
      },
    ]);
    const { container } = render(
      <ErrorNotice
        output={{
          text: `Invalid params: ${dump}`,
          isError: true,
          error: { code: -32602, message: `Invalid params: ${dump}` },
        }}
        announce="none"
      />,
    );
    expect(screen.queryByRole('alert')).toBeNull();
    expect(container.querySelector('.sb-error-sentence')?.textContent).toBe(
      'The answer was rejected: date (Invalid ISO date), name (Too small: expected string to have >=1 characters). Correct them and try again.',
    );
    const fields = [...container.querySelectorAll('.sb-error-fields li')].map(
      (item) => item.textContent,
    );
    expect(fields).toEqual([
      'date: Invalid ISO date',
      'name: Too small: expected string to have >=1 characters',
    ]);
    expect(container.textContent).not.toContain('invalid_format');
  });

  it('renders text from the error as text, never HTML', () => {
    const { container } = render(
      <ErrorNotice error={new Error('<img src=x onerror=alert(1)> broke')} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('.sb-error-sentence')?.textContent).toBe(
      'Something went wrong: <img src=x onerror=alert(1)> broke.',
    );
  });
});
