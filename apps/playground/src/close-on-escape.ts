import type { KeyboardEvent } from 'react';

/**
 * A `keydown` handler for a form or panel that closes on Escape, as a dialog does (WAI-ARIA
 * APG, "Dialog (Modal)": Escape closes). An Escape something inside already handled (an open
 * `<select>`, a nested dialog) is left alone.
 */
export function closeOnEscape(close: () => void) {
  return (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    event.preventDefault();
    close();
  };
}
