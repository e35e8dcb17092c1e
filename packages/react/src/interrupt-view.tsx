import type { ReactNode } from 'react';
import { ApprovalDialog } from './approval-dialog.tsx';
import { AuthorizationPrompt } from './authorization-prompt.tsx';
import { ElicitationForm } from './elicitation-form.tsx';
import { NestedInterruptPath, innermostInterrupt } from './nested-interrupt.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { TaskResumePrompt } from './task-resume-prompt.tsx';
import { UrlElicitation } from './url-elicitation.tsx';

/** Props of {@link InterruptView}. */
export interface InterruptViewProps {
  interrupt: Interrupt;
  /** Called with the human's answer; see each component. */
  onResolve: ResolveHandler;
  /**
   * For `authorization` interrupts: signs in and resumes, typically
   * `() => agent.authorizeAndResume(interrupt.callId)`. Without it, "Connect" resolves `approve`
   * (for apps that sign the user in elsewhere first).
   */
  onAuthorize?: () => Promise<unknown>;
  /**
   * For `form` interrupts: keep a draft of the answers under this key (see
   * `ElicitationFormProps.draftKey`), e.g. `elicitationDraftKey(threadId, interrupt.callId)`.
   * Default: no draft.
   */
  draftKey?: string;
  className?: string;
}

/**
 * Shows the right component for an interrupt's `mode`: {@link ApprovalDialog} (`approval`),
 * {@link ElicitationForm} (`form`), {@link UrlElicitation} (`url`),
 * {@link AuthorizationPrompt} (`authorization`) or {@link TaskResumePrompt} (`task`). A
 * sub-agent's interrupt (`interrupt.nested`) shows its innermost call, under the path of
 * sub-agents it was asked inside; the answer resolves the outer call.
 *
 * ```tsx
 * {chat.interrupts.map((interrupt) => (
 *   <InterruptView key={interrupt.callId} interrupt={interrupt}
 *     onResolve={(action, content) => chat.resolve(interrupt.callId, action, content)} />
 * ))}
 * ```
 */
export function InterruptView({
  interrupt,
  onResolve,
  onAuthorize,
  draftKey,
  className,
}: InterruptViewProps): ReactNode {
  if (interrupt.nested !== undefined) {
    // A sub-agent's call waits: show that call, and inside which sub-agents it was asked.
    const shown = innermostInterrupt(interrupt);
    return (
      <div className="sb-nested-interrupt">
        <NestedInterruptPath interrupt={interrupt} />
        <InterruptView
          interrupt={shown}
          onResolve={onResolve}
          {...(onAuthorize === undefined ? {} : { onAuthorize })}
          {...(draftKey === undefined ? {} : { draftKey })}
          {...(className === undefined ? {} : { className })}
        />
      </div>
    );
  }
  const props =
    className === undefined ? { interrupt, onResolve } : { interrupt, onResolve, className };
  switch (interrupt.mode) {
    case 'authorization':
      return (
        <AuthorizationPrompt
          {...props}
          onAuthorize={onAuthorize ?? (async () => await onResolve('approve'))}
        />
      );
    case 'form':
      return <ElicitationForm {...props} {...(draftKey === undefined ? {} : { draftKey })} />;
    case 'url':
      return <UrlElicitation {...props} />;
    case 'task':
      return <TaskResumePrompt {...props} />;
    default:
      return <ApprovalDialog {...props} />;
  }
}
