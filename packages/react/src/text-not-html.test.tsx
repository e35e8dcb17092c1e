import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptView } from './interrupt-view.tsx';
import type { Interrupt } from './interrupt-types.ts';
import { ToolProgress } from './tool-progress.tsx';

const payload = '<img src=x onerror="globalThis.__pwned = true">';

const base = {
  callId: 'call_x',
  toolName: `tool${payload}`,
  server: `server${payload}`,
  arguments: { note: payload },
  message: `message${payload}`,
} as const;

const interrupts: Record<string, Interrupt> = {
  approval: {
    ...base,
    mode: 'approval',
    annotations: { title: `title${payload}` },
  },
  form: {
    ...base,
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
    ...base,
    mode: 'form',
    requestedSchema: { type: 'object', properties: { [`key${payload}`]: { type: 'object' } } },
  },
  url: { ...base, mode: 'url', url: `https://example.com/${payload}` },
  urlUserinfo: {
    ...base,
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
      <ToolProgress progress={{ progress: 1, total: 2, message: payload }} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain(payload);
  });
});
