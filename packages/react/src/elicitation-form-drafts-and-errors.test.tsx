import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ELICITATION_DRAFT_KEY_PREFIX,
  elicitationDraftKey,
  sessionStorageDraftStore,
  type ElicitationDraftStore,
} from './elicitation-drafts.ts';
import { ElicitationForm } from './elicitation-form.tsx';
import type { Interrupt } from './interrupt-types.ts';
import { setupUser } from './test-user-test-support.ts';

/** The demo server's `book_table` form (packages/fixtures, elicitation-flows.ts). */
const bookingSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    partySize: { type: 'integer', title: 'Party size', minimum: 1, maximum: 20, default: 2 },
    date: { type: 'string', title: 'Date', format: 'date' },
    confirm: { type: 'boolean', title: 'Confirm the booking', default: false },
  },
  required: ['name', 'date'],
};

function formInterrupt(requestedSchema: Record<string, unknown>): Interrupt {
  return {
    callId: 'call_book',
    toolName: 'book_table',
    server: 'demo',
    arguments: {},
    mode: 'form',
    message: 'Book a table.',
    requestedSchema,
  };
}

function memoryDraftStore(): ElicitationDraftStore & { entries: Map<string, unknown> } {
  const entries = new Map<string, Record<string, unknown>>();
  return {
    entries,
    load: (key) => entries.get(key),
    save: (key, values) => void entries.set(key, structuredClone(values)),
    remove: (key) => void entries.delete(key),
  };
}

const accept = () => screen.getByRole('button', { name: 'Accept' });
const errorLines = () => document.querySelectorAll('.sb-field-error');

describe('ElicitationForm errors', () => {
  afterEach(() => cleanup());

  it('shows no error for a field not yet left, and drops an error on the change that fixes it (no stale error, no blur needed)', async () => {
    const user = setupUser();
    render(
      <ElicitationForm interrupt={formInterrupt(bookingSchema)} onResolve={() => undefined} />,
    );
    const lines = errorLines().length;
    // One reserved error line per field, empty while nothing is shown.
    expect(lines).toBe(4);
    expect(screen.queryByText(/must have required property/)).toBeNull();

    // Leave Name and Date empty: both now say why Accept is disabled.
    await user.click(screen.getByLabelText(/Name/));
    await user.click(screen.getByLabelText(/Date/));
    await user.click(screen.getByLabelText(/Confirm the booking/));
    expect(screen.getByText("must have required property 'Name'")).toBeTruthy();
    expect(screen.getByText("must have required property 'Date'")).toBeTruthy();
    expect(errorLines()).toHaveLength(lines);

    // Fill Date while the focus stays in it: its error goes on that change, not on a later blur.
    await user.type(screen.getByLabelText(/Date/), '2026-09-01');
    expect(document.activeElement).toBe(screen.getByLabelText(/Date/));
    expect(screen.queryByText("must have required property 'Date'")).toBeNull();
    expect(screen.getByText("must have required property 'Name'")).toBeTruthy();
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    expect(screen.queryByText(/must have required property/)).toBeNull();
    // The error lines stay (empty): nothing below them moved.
    expect(errorLines()).toHaveLength(lines);
    expect(accept()).toHaveProperty('disabled', false);
  });

  it('sends on the first click of Accept straight from a just-filled field', async () => {
    const user = setupUser();
    const onResolve = vi.fn();
    render(<ElicitationForm interrupt={formInterrupt(bookingSchema)} onResolve={onResolve} />);
    await user.click(screen.getByLabelText(/Date/));
    await user.click(screen.getByLabelText(/Name/));
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    await user.type(screen.getByLabelText(/Date/), '2026-09-01');
    const before = accept().getBoundingClientRect();
    await user.click(accept());
    expect(accept().getBoundingClientRect()).toEqual(before);
    expect(onResolve).toHaveBeenCalledOnce();
    expect(onResolve).toHaveBeenCalledWith('approve', {
      name: 'Ada',
      partySize: 2,
      date: '2026-09-01',
      confirm: false,
    });
  });
});

describe('ElicitationForm drafts', () => {
  afterEach(() => {
    cleanup();
    sessionStorage.clear();
  });

  it('keeps what was typed under draftKey, restores it on the next mount, and drops it once the answer is sent', async () => {
    const user = setupUser();
    const store = memoryDraftStore();
    const key = elicitationDraftKey('thread_1', 'call_book');
    const first = render(
      <ElicitationForm
        interrupt={formInterrupt(bookingSchema)}
        onResolve={() => undefined}
        draftKey={key}
        draftStore={store}
      />,
    );
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    expect(store.entries.get(key)).toMatchObject({ name: 'Ada', partySize: 2 });
    first.unmount();

    const onResolve = vi.fn();
    render(
      <ElicitationForm
        interrupt={formInterrupt(bookingSchema)}
        onResolve={onResolve}
        draftKey={key}
        draftStore={store}
      />,
    );
    expect((screen.getByLabelText(/Name/) as HTMLInputElement).value).toBe('Ada');
    // Only restored fields are checked at once; Date was never touched.
    expect(screen.queryByText("must have required property 'Date'")).toBeNull();
    await user.type(screen.getByLabelText(/Date/), '2026-09-01');
    await user.click(accept());
    expect(onResolve).toHaveBeenCalledWith('approve', {
      name: 'Ada',
      partySize: 2,
      date: '2026-09-01',
      confirm: false,
    });
    expect(store.entries.has(key)).toBe(false);
  });

  it('drops the draft on Decline too, and keeps no draft without draftKey', async () => {
    const user = setupUser();
    const store = memoryDraftStore();
    render(
      <ElicitationForm
        interrupt={formInterrupt(bookingSchema)}
        onResolve={() => undefined}
        draftKey="t:c"
        draftStore={store}
      />,
    );
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    expect(store.entries.has('t:c')).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    expect(store.entries.has('t:c')).toBe(false);
    cleanup();

    render(
      <ElicitationForm
        interrupt={formInterrupt(bookingSchema)}
        onResolve={() => undefined}
        draftStore={store}
      />,
    );
    await user.type(screen.getByLabelText(/Name/), 'Ada');
    expect(store.entries.size).toBe(0);
  });

  it('never stores or restores a password-format or write-only field', async () => {
    const user = setupUser();
    const store = memoryDraftStore();
    store.entries.set('t:c', { user: 'ada', secret: 'leaked', pin: '1234' });
    render(
      <ElicitationForm
        interrupt={formInterrupt({
          type: 'object',
          properties: {
            user: { type: 'string', title: 'User' },
            secret: { type: 'string', title: 'Secret', format: 'password' },
            pin: { type: 'string', title: 'PIN', writeOnly: true },
          },
        })}
        onResolve={() => undefined}
        draftKey="t:c"
        draftStore={store}
      />,
    );
    expect((screen.getByLabelText(/User/) as HTMLInputElement).value).toBe('ada');
    expect((screen.getByLabelText(/Secret/) as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText(/PIN/) as HTMLInputElement).value).toBe('');
    await user.type(screen.getByLabelText(/Secret/), 'hunter2');
    await user.type(screen.getByLabelText(/PIN/), '9999');
    await user.type(screen.getByLabelText(/User/), 'x');
    expect(store.entries.get('t:c')).toEqual({ user: 'adax' });
  });

  it('uses the tab’s sessionStorage by default', async () => {
    const user = setupUser();
    const key = elicitationDraftKey('thread_2', 'call_book');
    render(
      <ElicitationForm
        interrupt={formInterrupt(bookingSchema)}
        onResolve={() => undefined}
        draftKey={key}
      />,
    );
    await user.type(screen.getByLabelText(/Name/), 'Grace');
    const saved = sessionStorage.getItem(`${ELICITATION_DRAFT_KEY_PREFIX}thread_2:call_book`);
    expect(JSON.parse(saved ?? 'null')).toMatchObject({ name: 'Grace' });
  });
});

describe('sessionStorageDraftStore', () => {
  afterEach(() => sessionStorage.clear());

  it('saves, loads and removes JSON objects, and reads anything else as no draft', () => {
    const store = sessionStorageDraftStore();
    expect(store.load('a')).toBeUndefined();
    store.save('a', { name: 'Ada', size: 2 });
    expect(store.load('a')).toEqual({ name: 'Ada', size: 2 });
    store.remove('a');
    expect(store.load('a')).toBeUndefined();
    sessionStorage.setItem(`${ELICITATION_DRAFT_KEY_PREFIX}b`, '{not json');
    expect(store.load('b')).toBeUndefined();
    sessionStorage.setItem(`${ELICITATION_DRAFT_KEY_PREFIX}c`, '[1,2]');
    expect(store.load('c')).toBeUndefined();
  });

  it('never throws when storage refuses a write', () => {
    const store = sessionStorageDraftStore();
    const setItem = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    expect(() => store.save('a', { name: 'Ada' })).not.toThrow();
    setItem.mockRestore();
  });
});
