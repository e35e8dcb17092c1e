import { useId, type ReactNode } from 'react';
import { classNames } from './class-names.ts';
import type { Interrupt, ResolutionAction } from './interrupt-types.ts';

/**
 * The frame every interrupt component shares: a `<section class="sb-interrupt …">` labelled by
 * its title line and carrying `data-call-id`.
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
  return (
    <section
      className={classNames('sb-interrupt', ...variantClassNames)}
      aria-labelledby={titleId}
      data-call-id={interrupt.callId}
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
