import { Agent, MemoryHistoryStore, tool, type ToolContext } from '@switchboard/core';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ChatHarness, setupUser, startScriptedModel } from './test-support.tsx';

/** What the tools received when they ran again after the human answered. */
const resumed: unknown[] = [];

const bookingSchema = {
  type: 'object',
  properties: {
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 8 },
    diet: {
      type: 'array',
      title: 'Diet',
      items: {
        anyOf: [
          { const: 'veg', title: 'Vegetarian' },
          { const: 'gf', title: 'Gluten-free' },
        ],
      },
    },
    terrace: { type: 'boolean', title: 'Terrace', default: true },
  },
  required: ['guests'],
};

/** A local tool that asks with a form (MRTR style) and reports the answer once resumed. */
const bookTable = tool({
  name: 'book_table',
  description: 'Books a table',
  input: z.object({ restaurant: z.string() }),
  execute: ({ restaurant }, context: ToolContext) => {
    if (context.resume === undefined) {
      return context.interrupt(
        {
          mode: 'form',
          message: `Booking at ${restaurant}: a few details.`,
          requestedSchema: bookingSchema,
        },
        { restaurant },
      );
    }
    resumed.push(context.resume.resolution);
    const { action, content } = context.resume.resolution;
    return action === 'approve' ? `Booked: ${JSON.stringify(content)}` : `Not booked (${action}).`;
  },
});

/** A local tool that asks the user to open a URL. */
const connectAccount = tool({
  name: 'connect_account',
  description: 'Connects a payment account',
  input: z.object({}),
  execute: (_args, context: ToolContext) => {
    if (context.resume === undefined) {
      return context.interrupt(
        {
          mode: 'url',
          message: 'Sign in to connect your account.',
          url: 'https://pay.example.com/connect?state=s1',
          elicitationId: 'el-1',
        },
        {},
      );
    }
    resumed.push(context.resume.resolution);
    return `Connect answer: ${context.resume.resolution.action}.`;
  },
});

describe('interrupts through useAgent and InterruptView (scripted model, local tools)', () => {
  const servers: ScriptedModelServer[] = [];
  afterEach(async () => {
    cleanup();
    vi.restoreAllMocks();
    resumed.length = 0;
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function renderChat(toolName: string, args: Record<string, unknown>) {
    const { server, model } = await startScriptedModel([
      { toolCalls: [{ name: toolName, arguments: args, id: 'call_1' }] },
      { text: 'Done.' },
    ]);
    servers.push(server);
    const agent = new Agent({
      name: 'test',
      model,
      tools: [bookTable, connectAccount],
      history: new MemoryHistoryStore(),
    });
    const user = setupUser();
    render(<ChatHarness agent={agent} />);
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('paused'));
    return { user, server };
  }

  it('form: the generated form sends typed, validated content and the run completes', async () => {
    const { user, server } = await renderChat('book_table', { restaurant: 'Chez Nous' });
    expect(screen.getByText('Booking at Chez Nous: a few details.')).toBeTruthy();
    expect(screen.getByTestId('call-book_table').dataset.state).toBe('waiting');
    const accept = screen.getByRole('button', { name: 'Accept' });
    expect(accept).toHaveProperty('disabled', true);

    await user.type(screen.getByLabelText(/Guests/), '4');
    await user.click(screen.getByLabelText('Vegetarian'));
    await user.click(accept);

    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    expect(resumed).toEqual([
      { callId: 'call_1', action: 'approve', content: { guests: 4, diet: ['veg'], terrace: true } },
    ]);
    expect(screen.getByTestId('call-book_table').dataset.state).toBe('done');
    expect(screen.getByText('Done.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Accept' })).toBeNull();
    // The model saw the tool's answer built from the typed content.
    expect(JSON.stringify(server.requests.at(-1)?.messages)).toContain(
      'Booked: {\\"guests\\":4,\\"diet\\":[\\"veg\\"],\\"terrace\\":true}',
    );
  });

  it.each([
    ['Decline', 'reject'],
    ['Cancel', 'cancel'],
  ])('form: %s reaches the tool as %s', async (button, action) => {
    const { user } = await renderChat('book_table', { restaurant: 'Chez Nous' });
    await user.click(screen.getByRole('button', { name: button }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    expect(resumed).toEqual([{ callId: 'call_1', action }]);
  });

  it('url: opens only on click with noopener,noreferrer, then "I\'ve finished" approves', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const { user } = await renderChat('connect_account', {});
    const dialog = screen.getByText(/asks you to open a link/).closest('section') as HTMLElement;
    expect(within(dialog).getByText('pay.example.com')).toBeTruthy();
    expect(open).not.toHaveBeenCalled();

    await user.click(within(dialog).getByRole('button', { name: 'Open' }));
    expect(open).toHaveBeenCalledExactlyOnceWith(
      'https://pay.example.com/connect?state=s1',
      '_blank',
      'noopener,noreferrer',
    );
    await user.click(within(dialog).getByRole('button', { name: "I've finished" }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('idle'));
    expect(resumed).toEqual([{ callId: 'call_1', action: 'approve' }]);
  });
});
