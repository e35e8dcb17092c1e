import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Interrupt } from './interrupt-types.ts';
import { InterruptView } from './interrupt-view.tsx';
import { setupUser } from './test-user-test-support.ts';
import { ToolProgressBar } from './tool-progress-bar.tsx';

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
    ['task', 'sb-task', 'Keep waiting'],
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

  it('a task interrupt keeps waiting (approve) or cancels the task (cancel)', async () => {
    const onResolve = vi.fn();
    const interrupt: Interrupt = { ...base, mode: 'task', message: 'generate_report runs as task' };
    render(<InterruptView interrupt={interrupt} onResolve={onResolve} />);
    expect(screen.getByText('generate_report runs as task')).toBeTruthy();
    await setupUser().click(screen.getByRole('button', { name: 'Cancel task' }));
    expect(onResolve).toHaveBeenCalledWith('cancel');
  });

  it('passes the answer through onResolve', async () => {
    const onResolve = vi.fn();
    render(<InterruptView interrupt={base} onResolve={onResolve} />);
    await setupUser().click(screen.getByRole('button', { name: 'Approve' }));
    expect(onResolve).toHaveBeenCalledWith('approve');
  });
});

const payload = '<img src=x onerror="globalThis.__pwned = true">';

const hostile = {
  callId: 'call_x',
  toolName: `tool${payload}`,
  server: `server${payload}`,
  arguments: { note: payload },
  message: `message${payload}`,
} as const;

const interrupts: Record<string, Interrupt> = {
  approval: {
    ...hostile,
    mode: 'approval',
    annotations: { title: `title${payload}` },
  },
  form: {
    ...hostile,
    mode: 'form',
    requestedSchema: {
      type: 'object',
      title: payload,
      description: payload,
      properties: {
        name: {
          type: 'string',
          title: `field${payload}`,
          description: `help${payload}`,
          default: payload,
        },
        pick: {
          type: 'string',
          oneOf: [{ const: 'a', title: `choice${payload}` }],
        },
        many: { type: 'array', items: { anyOf: [{ const: 'b', title: `box${payload}` }] } },
        legacy: { type: 'string', enum: ['c'], enumNames: [`legacy${payload}`] },
      },
    },
  },
  unsupported: {
    ...hostile,
    mode: 'form',
    requestedSchema: { type: 'object', properties: { [`key${payload}`]: { type: 'object' } } },
  },
  url: { ...hostile, mode: 'url', url: `https://example.com/${payload}` },
  urlUserinfo: {
    ...hostile,
    mode: 'url',
    url: `https://a${encodeURIComponent(payload)}@example.com/`,
  },
};

describe('server and model text renders as text, never as HTML', () => {
  afterEach(() => {
    cleanup();
  });

  it.each(Object.entries(interrupts))('%s interrupt', (_name, interrupt) => {
    const { container } = render(
      <InterruptView interrupt={interrupt} onResolve={() => undefined} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<img');
    expect((globalThis as { __pwned?: boolean }).__pwned).toBeUndefined();
  });

  it('tool progress message', () => {
    const { container } = render(
      <ToolProgressBar progress={{ progress: 1, total: 2, message: payload }} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain(payload);
  });
});
