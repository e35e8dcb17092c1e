import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthorizationPrompt } from './authorization-prompt.tsx';
import type { Interrupt } from './interrupt-types.ts';
import { InterruptView } from './interrupt-view.tsx';
import { setupUser } from './test-user-test-support.ts';

const interrupt: Interrupt = {
  callId: 'call_reset',
  toolName: 'reset_demo_data',
  server: 'demo-oauth',
  arguments: {},
  mode: 'authorization',
  message: 'MCP server "demo-oauth" needs you to sign in before reset_demo_data can run.',
};

const button = (name: string | RegExp) => screen.getByRole('button', { name });

describe('AuthorizationPrompt', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('shows the server and its message, and signs in on Connect', async () => {
    const user = setupUser();
    const onAuthorize = vi.fn(() => Promise.resolve());
    const onResolve = vi.fn();
    render(
      <AuthorizationPrompt interrupt={interrupt} onAuthorize={onAuthorize} onResolve={onResolve} />,
    );
    expect(screen.getByText('demo-oauth')).toBeTruthy();
    expect(screen.getByText(interrupt.message as string)).toBeTruthy();
    await user.click(button('Connect'));
    expect(onAuthorize).toHaveBeenCalledTimes(1);
    expect(onResolve).not.toHaveBeenCalled();
  });

  it('keeps the prompt and shows why when the sign-in failed', async () => {
    const user = setupUser();
    const onAuthorize = vi.fn(() =>
      Promise.reject(new Error('The sign-in window was closed before it finished.')),
    );
    render(
      <AuthorizationPrompt interrupt={interrupt} onAuthorize={onAuthorize} onResolve={vi.fn()} />,
    );
    await user.click(button('Connect'));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The sign-in window was closed before it finished.',
    );
    expect((button('Connect') as HTMLButtonElement).disabled).toBe(false);
  });

  it('answers reject on Decline and cancel on Cancel without signing in', async () => {
    const user = setupUser();
    const onAuthorize = vi.fn(() => Promise.resolve());
    const onResolve = vi.fn();
    render(
      <AuthorizationPrompt interrupt={interrupt} onAuthorize={onAuthorize} onResolve={onResolve} />,
    );
    await user.click(button('Decline'));
    await user.click(button('Cancel'));
    expect(onResolve.mock.calls).toEqual([['reject'], ['cancel']]);
    expect(onAuthorize).not.toHaveBeenCalled();
  });

  it('is what InterruptView shows for an authorization interrupt; without onAuthorize, Connect approves', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<InterruptView interrupt={interrupt} onResolve={onResolve} />);
    await user.click(button('Connect'));
    expect(onResolve).toHaveBeenCalledWith('approve');
  });
});
