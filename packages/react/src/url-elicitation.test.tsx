import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Interrupt } from './interrupt-types.ts';
import { setupUser } from './test-user-test-support.ts';
import { UrlElicitation } from './url-elicitation.tsx';

function urlInterrupt(url: string | undefined, extra: Partial<Interrupt> = {}): Interrupt {
  return {
    callId: 'call_url',
    toolName: 'connect_account',
    server: 'payments',
    arguments: {},
    mode: 'url',
    message: 'Connect your account to continue.',
    ...(url === undefined ? {} : { url }),
    elicitationId: 'el-1',
    ...extra,
  };
}

const button = (name: string | RegExp) => screen.getByRole('button', { name });

describe('UrlElicitation', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('shows the full URL with the host highlighted, the server and its message; never opens by itself', () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    render(
      <UrlElicitation
        interrupt={urlInterrupt('https://pay.example.com/connect?session=abc')}
        onResolve={() => undefined}
      />,
    );
    expect(screen.getByTestId('sb-url').textContent).toBe(
      'https://pay.example.com/connect?session=abc',
    );
    const host = screen.getByText('pay.example.com');
    expect(host.tagName).toBe('STRONG');
    expect(host.className).toBe('sb-url-host');
    expect(screen.getByText('payments')).toBeTruthy();
    expect(screen.getByText('Connect your account to continue.')).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.queryByRole('listitem')).toBeNull();
    expect(screen.queryByRole('button', { name: "I've finished" })).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });

  it('opens only on a click, with noopener,noreferrer, then offers "I\'ve finished" (approve)', async () => {
    const user = setupUser();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const onResolve = vi.fn();
    render(
      <UrlElicitation
        interrupt={urlInterrupt('https://pay.example.com/connect')}
        onResolve={onResolve}
      />,
    );
    await user.click(button('Open'));
    expect(open).toHaveBeenCalledExactlyOnceWith(
      'https://pay.example.com/connect',
      '_blank',
      'noopener,noreferrer',
    );
    expect(onResolve).not.toHaveBeenCalled();
    await user.click(button("I've finished"));
    expect(onResolve).toHaveBeenCalledWith('approve');
  });

  it('sends reject on Decline and cancel on Cancel, before or without opening', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<UrlElicitation interrupt={urlInterrupt('https://a.example/')} onResolve={onResolve} />);
    await user.click(button('Decline'));
    await user.click(button('Cancel'));
    expect(onResolve.mock.calls).toEqual([['reject'], ['cancel']]);
  });

  it('refuses to open anything but http(s), with a message', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    render(
      <UrlElicitation
        interrupt={urlInterrupt('javascript:alert(1)')}
        onResolve={() => undefined}
      />,
    );
    expect(button('Open')).toHaveProperty('disabled', true);
    expect(screen.getByText(/not a web address \(javascript:\)/).textContent).toMatch(
      /Only http and https links can be opened/,
    );
    expect(open).not.toHaveBeenCalled();
  });

  it('warns on plain http, softly for localhost, and on punycode hosts', () => {
    const { rerender, container } = render(
      <UrlElicitation
        interrupt={urlInterrupt('http://pay.example.com/')}
        onResolve={() => undefined}
      />,
    );
    const warnings = () =>
      [...container.querySelectorAll('[data-warning]')].map((element) => ({
        key: element.getAttribute('data-warning'),
        soft: element.classList.contains('sb-url-warning--soft'),
      }));
    expect(warnings()).toEqual([{ key: 'insecure', soft: false }]);
    expect(screen.getByText(/Not secure/)).toBeTruthy();

    rerender(
      <UrlElicitation
        interrupt={urlInterrupt('http://127.0.0.1:3000/cb')}
        onResolve={() => undefined}
      />,
    );
    expect(warnings()).toEqual([{ key: 'local', soft: true }]);

    rerender(
      <UrlElicitation
        interrupt={urlInterrupt('https://xn--pypal-4ve.com/')}
        onResolve={() => undefined}
      />,
    );
    expect(warnings()).toEqual([{ key: 'punycode', soft: false }]);
    expect(screen.getByText(/punycode "xn--"/)).toBeTruthy();

    rerender(
      <UrlElicitation
        interrupt={urlInterrupt('https://example.com/')}
        onResolve={() => undefined}
      />,
    );
    expect(warnings()).toEqual([]);
  });

  it('shows a clear message for a missing URL and still offers Decline and Cancel', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<UrlElicitation interrupt={urlInterrupt(undefined)} onResolve={onResolve} />);
    expect(screen.getByRole('alert').textContent).toMatch(/did not send a valid address/);
    expect(button('Open')).toHaveProperty('disabled', true);
    await user.click(button('Cancel'));
    expect(onResolve).toHaveBeenCalledWith('cancel');
  });

  it('says when the server asked again after a reload', () => {
    render(
      <UrlElicitation
        interrupt={urlInterrupt('https://example.com/', { reissued: true })}
        onResolve={() => undefined}
      />,
    );
    expect(screen.getByText(/asked again after the page was reloaded/)).toBeTruthy();
  });
});
