import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { classNames } from './class-names.ts';
import type { Interrupt, ResolutionAction } from './interrupt-types.ts';

/**
 * The frame every interrupt component shares: a `<section class="sb-interrupt …">` labelled by
 * its title line and carrying `data-call-id`.
 *
 * Focus (WAI-ARIA, "managing focus"): when it appears, keyboard focus moves into it — to the
 * section itself, whose label a screen reader reads, unless a control in it took focus already
 * (an `autoFocus` Reject) or another interrupt holds focus; when it goes (answered), focus
 * returns to where it was before (the message box), if that element is still there.
 */
export function InterruptFrame({
  interrupt,
  variantClassNames,
  title,
  children,
}: {
  interrupt: Interrupt;
  /** The component's own classes (e.g. `sb-url-elicitation`) and the caller's `className`. */
  variantClassNames: readonly (string | false | undefined)[];
  /** The content of the `sb-interrupt-title` line. */
  title: ReactNode;
  children: ReactNode;
}): ReactNode {
  const titleId = useId();
  const section = useRef<HTMLElement>(null);
  // Where focus was before it entered this interrupt (set by the first focus that came in).
  const cameFrom = useRef<HTMLElement | undefined>(undefined);
  useLayoutEffect(() => {
    const frame = section.current;
    if (frame === null) return;
    const active = frame.ownerDocument.activeElement;
    const inAnotherInterrupt =
      active !== null && !frame.contains(active) && active.closest('.sb-interrupt') !== null;
    if (!frame.contains(active) && !inAnotherInterrupt) {
      if (active instanceof HTMLElement && active !== frame.ownerDocument.body) {
        cameFrom.current = active;
      }
      frame.focus({ preventScroll: true });
    }
    return () => {
      const now = frame.ownerDocument.activeElement;
      const focusWasHere = now === null || now === frame.ownerDocument.body || frame.contains(now);
      if (focusWasHere && cameFrom.current?.isConnected === true) cameFrom.current.focus();
    };
  }, []);
  return (
    <section
      ref={section}
      className={classNames('sb-interrupt', ...variantClassNames)}
      aria-labelledby={titleId}
      data-call-id={interrupt.callId}
      tabIndex={-1}
      onFocus={(event) => {
        const from = event.relatedTarget;
        if (
          cameFrom.current === undefined &&
          from instanceof HTMLElement &&
          !event.currentTarget.contains(from)
        ) {
          cameFrom.current = from;
        }
      }}
    >
      <p className="sb-interrupt-title" id={titleId}>
        {title}
      </p>
      {children}
    </section>
  );
}

/**
 * Decline (`reject`) and Cancel (`cancel`): the two answers every elicitation-like interrupt
 * always offers, disabled while an answer is on its way.
 */
export function DeclineAndCancel({
  disabled,
  answer,
}: {
  disabled: boolean;
  answer(action: ResolutionAction): void;
}): ReactNode {
  return (
    <>
      <button
        type="button"
        className="sb-button"
        disabled={disabled}
        onClick={() => answer('reject')}
      >
        Decline
      </button>
      <button
        type="button"
        className="sb-button sb-button--quiet"
        disabled={disabled}
        onClick={() => answer('cancel')}
      >
        Cancel
      </button>
    </>
  );
}
