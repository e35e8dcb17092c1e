import type { ReactNode } from 'react';
import { ApprovalDialog } from './approval-dialog.tsx';
import { ElicitationForm } from './elicitation-form.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { UrlElicitation } from './url-elicitation.tsx';

/** Props of {@link InterruptView}. */
export interface InterruptViewProps {
  interrupt: Interrupt;
  /** Called with the human's answer; see each component. */
  onResolve: ResolveHandler;
  className?: string;
}

/**
 * Shows the right component for an interrupt's `mode`: {@link ApprovalDialog} (`approval`),
 * {@link ElicitationForm} (`form`) or {@link UrlElicitation} (`url`).
 *
 * ```tsx
 * {chat.interrupts.map((interrupt) => (
 *   <InterruptView key={interrupt.callId} interrupt={interrupt}
 *     onResolve={(action, content) => chat.resolve(interrupt.callId, action, content)} />
 * ))}
 * ```
 */
export function InterruptView({ interrupt, onResolve, className }: InterruptViewProps): ReactNode {
  const props =
    className === undefined ? { interrupt, onResolve } : { interrupt, onResolve, className };
  switch (interrupt.mode) {
    case 'form':
      return <ElicitationForm {...props} />;
    case 'url':
      return <UrlElicitation {...props} />;
    default:
      return <ApprovalDialog {...props} />;
  }
}
