import type { ReactNode } from 'react';
import type { Interrupt } from './interrupt-types.ts';

/**
 * The server's message (as text) and, for a re-issued request, a note that the server asked
 * again after a reload. Shared by the interrupt components.
 */
export function InterruptNotes({ interrupt }: { interrupt: Interrupt }): ReactNode {
  return (
    <>
      {interrupt.message !== undefined && interrupt.message !== '' && (
        <p className="sb-interrupt-message">{interrupt.message}</p>
      )}
      {interrupt.reissued === true && (
        <p className="sb-interrupt-note sb-interrupt-note--reissued">
          The server asked again after the page was reloaded; your earlier answer, if any, was not
          received.
        </p>
      )}
    </>
  );
}
