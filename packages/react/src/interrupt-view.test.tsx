import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Interrupt } from './interrupt-types.ts';
import { InterruptView } from './interrupt-view.tsx';
import { setupUser } from './test-support.tsx';

const base: Interrupt = {
  callId: 'c1',
  toolName: 't',
  server: 's',
  arguments: {},
  mode: 'approval',
};

describe('InterruptView', () => {
  afterEach(() => {
    cleanup();
  });

  it.each([
    ['approval', 'sb-approval', 'Approve'],
    ['form', 'sb-elicitation', 'Accept'],
    ['url', 'sb-url-elicitation', 'Open'],
  ] as const)('renders the %s component', (mode, className, button) => {
    const interrupt: Interrupt = {
      ...base,
      mode,
      ...(mode === 'form' ? { requestedSchema: { type: 'object', properties: {} } } : {}),
      ...(mode === 'url' ? { url: 'https://example.com/' } : {}),
    };
    const { container } = render(
      <InterruptView interrupt={interrupt} onResolve={() => undefined} className="mine" />,
    );
    const classes = container.firstElementChild?.classList;
    expect([
      classes?.contains('sb-interrupt'),
      classes?.contains(className),
      classes?.contains('mine'),
    ]).toEqual([true, true, true]);
    expect(screen.getByRole('button', { name: button })).toBeTruthy();
  });

  it('passes the answer through onResolve', async () => {
    const onResolve = vi.fn();
    render(<InterruptView interrupt={base} onResolve={onResolve} />);
    await setupUser().click(screen.getByRole('button', { name: 'Approve' }));
    expect(onResolve).toHaveBeenCalledWith('approve');
  });
});
