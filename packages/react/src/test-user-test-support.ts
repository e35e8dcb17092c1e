import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';

/**
 * A user-event instance for this package's jsdom tests: no delay between keys and no CSS
 * pointer-events check (that check calls getComputedStyle up the tree on every action, which is
 * slow in jsdom). Kept apart from `test-support.tsx` so component tests stay light to import.
 */
export function setupUser(): ReturnType<typeof userEvent.setup> {
  return userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
}
