import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalDialog } from './approval-dialog.tsx';
import type { Interrupt } from './interrupt-types.ts';
import { setupUser } from './test-user-test-support.ts';

function approval(extra: Partial<Interrupt> = {}): Interrupt {
  return {
    callId: 'call_1',
    toolName: 'delete_repo',
    server: 'github',
    arguments: { owner: 'acme', repo: 'site', options: { force: true } },
    mode: 'approval',
    ...extra,
  };
}

const badges = (container: HTMLElement) =>
  Object.fromEntries(
    [...container.querySelectorAll('[data-hint]')].map((element) => [
      element.getAttribute('data-hint'),
      element.textContent,
    ]),
  );

describe('ApprovalDialog', () => {
  afterEach(() => {
    cleanup();
  });

  it('says when an MCP Apps view asked for the call, and only then', () => {
    const { container, rerender } = render(
      <ApprovalDialog
        interrupt={approval({
          requestedBy: { server: 'github', toolName: 'repo_view', callId: 'call_0' },
        })}
        onResolve={() => undefined}
      />,
    );
    expect(container.querySelector('[data-requested-by]')?.textContent).toBe(
      'Requested by the app’s view of repo_view, not by the model.',
    );
    rerender(<ApprovalDialog interrupt={approval()} onResolve={() => undefined} />);
    expect(container.querySelector('[data-requested-by]')).toBeNull();
  });

  it('shows tool, server and the arguments as pretty JSON text', () => {
    const { container } = render(
      <ApprovalDialog interrupt={approval()} onResolve={() => undefined} />,
    );
    expect(screen.getByText('delete_repo')).toBeTruthy();
    expect(screen.getByText('github')).toBeTruthy();
    const pre = container.querySelector('pre');
    expect(pre?.textContent).toBe(
      JSON.stringify({ owner: 'acme', repo: 'site', options: { force: true } }, null, 2),
    );
    expect(pre?.children).toHaveLength(0);
  });

  it('labels annotations as server hints and shows unset ones as the conservative default', () => {
    const { container } = render(
      <ApprovalDialog interrupt={approval()} onResolve={() => undefined} />,
    );
    expect(screen.getByText(/Hints from the server \(not verified\)/)).toBeTruthy();
    expect(badges(container)).toEqual({
      'read-only': 'may change data',
      destructive: 'may be destructive',
      idempotent: 'may not be idempotent',
      'open-world': 'may reach outside systems',
    });
  });

  it('shows declared hints with core semantics (read-only implies not destructive and idempotent)', () => {
    const { container, rerender } = render(
      <ApprovalDialog
        interrupt={approval({ annotations: { readOnlyHint: true, openWorldHint: false } })}
        onResolve={() => undefined}
      />,
    );
    expect(badges(container)).toEqual({
      'read-only': 'read-only',
      destructive: 'not destructive',
      idempotent: 'idempotent',
      'open-world': 'closed world',
    });
    rerender(
      <ApprovalDialog
        interrupt={approval({
          annotations: {
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: true,
          },
        })}
        onResolve={() => undefined}
      />,
    );
    expect(badges(container)).toEqual({
      'read-only': 'changes data',
      destructive: 'destructive',
      idempotent: 'not idempotent',
      'open-world': 'open world (reaches outside systems)',
    });
  });

  it('focuses Reject for a tool that may be destructive, the dialog itself for a read-only one', () => {
    render(<ApprovalDialog interrupt={approval()} onResolve={() => undefined} />);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Reject' }));
    cleanup();
    render(
      <ApprovalDialog
        interrupt={approval({ annotations: { readOnlyHint: true } })}
        onResolve={() => undefined}
      />,
    );
    expect(document.activeElement).toBe(screen.getByRole('region'));
  });

  it('gives focus back to where it was once it is answered (unmounted)', () => {
    const composer = document.createElement('textarea');
    document.body.append(composer);
    composer.focus();
    const { unmount } = render(
      <ApprovalDialog interrupt={approval()} onResolve={() => undefined} />,
    );
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Reject' }));
    unmount();
    expect(document.activeElement).toBe(composer);
    composer.remove();
  });

  it('sends approve and reject, shows the message, and disables both while an answer is pending', async () => {
    const user = setupUser();
    let finish: () => void = () => undefined;
    const onResolve = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    render(
      <ApprovalDialog
        interrupt={approval({ message: 'This cannot be undone.' })}
        onResolve={onResolve}
      />,
    );
    expect(screen.getByText('This cannot be undone.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onResolve.mock.calls).toEqual([['approve']]);
    expect(screen.getByRole('button', { name: 'Reject' })).toHaveProperty('disabled', true);
    finish();
    await vi.waitFor(() =>
      expect(screen.getByRole('button', { name: 'Reject' })).toHaveProperty('disabled', false),
    );
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onResolve.mock.calls).toEqual([['approve'], ['reject']]);
  });
});
