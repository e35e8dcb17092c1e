import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ElicitationForm } from './elicitation-form.tsx';
import type { Interrupt } from './interrupt-types.ts';
import { setupUser } from './test-user-test-support.ts';

const fullSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'How we address you', minLength: 2 },
    email: { type: 'string', title: 'Email', format: 'email' },
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 8, default: 2 },
    budget: { type: 'number', title: 'Budget' },
    outside: { type: 'boolean', title: 'Sit outside', default: false },
    size: { type: 'string', title: 'Table', enum: ['small', 'large'] },
    region: {
      type: 'string',
      title: 'Region',
      oneOf: [
        { const: 'eu', title: 'Europe' },
        { const: 'us', title: 'United States' },
      ],
      default: 'eu',
    },
    level: { type: 'string', title: 'Level', enum: ['1', '2'], enumNames: ['Ground', 'Roof'] },
    diet: {
      type: 'array',
      title: 'Diet',
      minItems: 1,
      items: {
        anyOf: [
          { const: 'veg', title: 'Vegetarian' },
          { const: 'gf', title: 'Gluten-free' },
        ],
      },
    },
    day: { type: 'string', title: 'Day', format: 'date' },
  },
  required: ['name', 'email', 'guests', 'diet'],
};

function formInterrupt(
  requestedSchema: Record<string, unknown>,
  extra: Partial<Interrupt> = {},
): Interrupt {
  return {
    callId: 'call_form',
    toolName: 'book_table',
    server: 'bookings',
    arguments: {},
    mode: 'form',
    message: 'Tell us about your booking.',
    requestedSchema,
    ...extra,
  };
}

const accept = () => screen.getByRole('button', { name: 'Accept' });

/** Focuses a field and pastes `text` into it (one change event instead of one per key). */
async function fill(user: ReturnType<typeof setupUser>, field: HTMLElement, text: string) {
  await user.clear(field);
  await user.click(field);
  await user.paste(text);
}

describe('ElicitationForm', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('shows the asking server, its message and every MCP field kind with defaults pre-filled', () => {
    render(<ElicitationForm interrupt={formInterrupt(fullSchema)} onResolve={() => undefined} />);
    expect(screen.getByText('bookings')).toBeTruthy();
    expect(screen.getByText('Tell us about your booking.')).toBeTruthy();
    expect(screen.getByText('How we address you')).toBeTruthy();
    expect((screen.getByLabelText(/Name/) as HTMLInputElement).type).toBe('text');
    expect((screen.getByLabelText(/Email/) as HTMLInputElement).type).toBe('email');
    expect((screen.getByLabelText(/Guests/) as HTMLInputElement).value).toBe('2');
    expect((screen.getByLabelText(/Sit outside/) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText(/Day/) as HTMLInputElement).type).toBe('date');
    const region = screen.getByLabelText(/Region/) as HTMLSelectElement;
    expect([...region.options].map((option) => option.text)).toEqual(['Europe', 'United States']);
    expect(region.selectedOptions[0]?.text).toBe('Europe');
    const level = screen.getByLabelText(/Level/) as HTMLSelectElement;
    expect([...level.options].map((option) => option.text)).toContain('Roof');
    expect((screen.getByLabelText('Vegetarian') as HTMLInputElement).type).toBe('checkbox');
    expect(screen.getByLabelText('Gluten-free')).toBeTruthy();
  });

  it('keeps Accept disabled while invalid and sends typed, validated content', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<ElicitationForm interrupt={formInterrupt(fullSchema)} onResolve={onResolve} />);
    expect(accept()).toHaveProperty('disabled', true);

    await user.type(screen.getByLabelText(/Name/), 'Ada');
    await fill(user, screen.getByLabelText(/Email/), 'not-an-email');
    await user.click(screen.getByLabelText('Vegetarian'));
    expect(accept()).toHaveProperty('disabled', true);

    await fill(user, screen.getByLabelText(/Email/), 'ada@example.com');
    expect(accept()).toHaveProperty('disabled', false);

    await fill(user, screen.getByLabelText(/Guests/), '4');
    await fill(user, screen.getByLabelText(/Budget/), '12.5');
    await user.click(screen.getByLabelText(/Sit outside/));
    await user.selectOptions(screen.getByLabelText(/Table/), 'large');
    await user.selectOptions(screen.getByLabelText(/Region/), 'United States');
    await user.selectOptions(screen.getByLabelText(/Level/), 'Roof');
    await user.click(screen.getByLabelText('Gluten-free'));
    await user.type(screen.getByLabelText(/Day/), '2026-05-01');
    await user.click(accept());

    expect(onResolve).toHaveBeenCalledOnce();
    expect(onResolve).toHaveBeenCalledWith('approve', {
      name: 'Ada',
      email: 'ada@example.com',
      guests: 4,
      budget: 12.5,
      outside: true,
      size: 'large',
      region: 'us',
      level: '2',
      diet: ['veg', 'gf'],
      day: '2026-05-01',
    });
  });

  it('keeps Accept disabled when a number is out of range, and says why after the field is left', async () => {
    const user = setupUser();
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          properties: { guests: { type: 'integer', title: 'Guests', maximum: 8 } },
          required: ['guests'],
        })}
        onResolve={() => undefined}
      />,
    );
    await user.type(screen.getByLabelText(/Guests/), '12');
    await user.tab();
    expect(accept()).toHaveProperty('disabled', true);
    expect(screen.getByText(/must be <= 8/)).toBeTruthy();
    await user.clear(screen.getByLabelText(/Guests/));
    await user.type(screen.getByLabelText(/Guests/), '8');
    expect(accept()).toHaveProperty('disabled', false);
  });

  it('sends reject on Decline and cancel on Cancel, without content', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<ElicitationForm interrupt={formInterrupt(fullSchema)} onResolve={onResolve} />);
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onResolve.mock.calls).toEqual([['reject'], ['cancel']]);
  });

  it('disables every button while an answer is being sent, and ignores a second click', async () => {
    const user = setupUser();
    let finish: () => void = () => undefined;
    const onResolve = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          properties: { ok: { type: 'boolean', title: 'OK' } },
        })}
        onResolve={onResolve}
      />,
    );
    await user.click(accept());
    await user.click(accept());
    expect(onResolve).toHaveBeenCalledOnce();
    expect(onResolve).toHaveBeenCalledWith('approve', {});
    for (const name of ['Accept', 'Decline', 'Cancel']) {
      expect(screen.getByRole('button', { name })).toHaveProperty('disabled', true);
    }
    finish();
    await vi.waitFor(() => expect(accept()).toHaveProperty('disabled', false));
  });

  it('renders nullable unions and local $ref fields', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          $defs: { Colour: { type: 'string', enum: ['red', 'blue'] } },
          properties: {
            nickname: { type: ['string', 'null'], title: 'Nickname' },
            age: { anyOf: [{ type: 'integer' }, { type: 'null' }], title: 'Age', default: null },
            colour: { $ref: '#/$defs/Colour', title: 'Colour' },
          },
          required: ['colour'],
        })}
        onResolve={onResolve}
      />,
    );
    await user.type(screen.getByLabelText(/Age/), '41');
    await user.selectOptions(screen.getByLabelText(/Colour/), 'blue');
    await user.click(accept());
    expect(onResolve).toHaveBeenCalledWith('approve', { age: 41, colour: 'blue' });
  });

  it('explains a schema that is not an object instead of showing JSON, and still offers Decline and Cancel', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    const { container } = render(
      <ElicitationForm
        interrupt={formInterrupt({ type: 'string', enum: ['a', 'b'] })}
        onResolve={onResolve}
      />,
    );
    expect(screen.getByRole('alert').textContent).toMatch(
      /^This form cannot be shown: the schema asks for a value of type "string"/,
    );
    expect(container.querySelector('pre, form, textarea, input')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Accept' })).toBeNull();
    const buttons = within(container)
      .getAllByRole('button')
      .map((button) => button.textContent);
    expect(buttons).toEqual(['Decline', 'Cancel']);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onResolve).toHaveBeenCalledWith('cancel');
  });

  it('shows a field no widget can as a JSON text field: invalid JSON keeps Accept disabled, valid JSON is sent parsed', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name' },
            address: {
              type: 'object',
              title: 'Address',
              properties: { city: { type: 'string' } },
            },
            scores: {
              type: 'object',
              title: 'Scores',
              additionalProperties: { type: 'number' },
              default: { taste: 5 },
            },
          },
          required: ['name', 'address'],
        })}
        onResolve={onResolve}
      />,
    );
    expect(screen.queryByRole('alert')).toBeNull();
    const address = screen.getByLabelText(/Address/);
    expect(address.tagName).toBe('TEXTAREA');
    expect(screen.getAllByText(/Enter as JSON/)).toHaveLength(2);
    expect((screen.getByLabelText(/Scores/) as HTMLTextAreaElement).value).toBe(
      JSON.stringify({ taste: 5 }, null, 2),
    );
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    await fill(user, address, '{"city": ');
    expect(accept()).toHaveProperty('disabled', true);
    await fill(user, address, '{"city": "Paris"}');
    expect(accept()).toHaveProperty('disabled', false);
    await user.click(accept());
    expect(onResolve).toHaveBeenCalledWith('approve', {
      name: 'Ada',
      address: { city: 'Paris' },
      scores: { taste: 5 },
    });
  });

  it('renders what servers in the wild send: nullable enum, titled single and multi-selects, formats, defaults, $ref', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          $defs: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
          properties: {
            size: {
              title: 'Size',
              anyOf: [{ type: 'string', enum: ['S', 'M', 'L'] }, { type: 'null' }],
            },
            note: { type: ['string', 'null'], title: 'Note' },
            plan: {
              title: 'Plan',
              oneOf: [
                { const: 'free', title: 'Free' },
                { const: 'pro', title: 'Pro' },
              ],
              default: 'free',
            },
            extras: {
              type: 'array',
              title: 'Extras',
              items: {
                anyOf: [
                  { const: 'wifi', title: 'Wi-Fi' },
                  { const: 'parking', title: 'Parking' },
                ],
              },
              uniqueItems: true,
            },
            email: { type: 'string', title: 'Email', format: 'email' },
            color: { $ref: '#/$defs/color', title: 'Color' },
          },
          required: ['email', 'color'],
        })}
        onResolve={onResolve}
      />,
    );
    const size = screen.getByLabelText(/Size/) as HTMLSelectElement;
    expect([...size.options].map((option) => option.value).filter(Boolean)).toHaveLength(3);
    const plan = screen.getByLabelText(/Plan/) as HTMLSelectElement;
    expect(plan.selectedOptions[0]?.text).toBe('Free');
    expect((screen.getByLabelText(/Email/) as HTMLInputElement).type).toBe('email');
    await user.selectOptions(size, 'M');
    await user.selectOptions(plan, 'Pro');
    await user.click(screen.getByLabelText('Wi-Fi'));
    await user.click(screen.getByLabelText('Parking'));
    await fill(user, screen.getByLabelText(/Email/), 'ada@example.com');
    await user.selectOptions(screen.getByLabelText(/Color/), 'green');
    await user.click(accept());
    expect(onResolve).toHaveBeenCalledWith('approve', {
      size: 'M',
      plan: 'pro',
      extras: ['wifi', 'parking'],
      email: 'ada@example.com',
      color: 'green',
    });
  });

  it('says when the server asked again after a reload', () => {
    render(
      <ElicitationForm
        interrupt={formInterrupt({ type: 'object', properties: {} }, { reissued: true })}
        onResolve={() => undefined}
      />,
    );
    expect(screen.getByText(/asked again after the page was reloaded/)).toBeTruthy();
  });
});
