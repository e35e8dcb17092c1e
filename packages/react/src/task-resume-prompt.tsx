import type { ReactNode } from 'react';
import { InterruptFrame } from './interrupt-frame.tsx';
import { InterruptNotes } from './interrupt-notes.tsx';
import { InterruptSource } from './interrupt-source.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { usePendingAnswer } from './use-pending-answer.ts';

/** Props of {@link TaskResumePrompt}. */
export interface TaskResumePromptProps {
  /** A `task` interrupt (`mode: 'task'`, `server`, `message`). */
  interrupt: Interrupt;
  /** Called with `'approve'` (keep following the task) or `'cancel'` (send `tasks/cancel`). */
  onResolve: ResolveHandler;
  /** Extra class for the root element (`sb-interrupt sb-task`). */
  className?: string;
}

/**
 * A tool call follows a long-running MCP task that a closed page (or a stopped process) left
 * running. `AgentChat` resumes such calls by itself when it loads the thread; this prompt is for
 * apps that resume by hand: "Keep waiting" polls the task again, "Cancel task" cancels it on the
 * server. Server text is shown as text.
 */
export function TaskResumePrompt({
  interrupt,
  onResolve,
  className,
}: TaskResumePromptProps): ReactNode {
  const { pending, answer } = usePendingAnswer(onResolve);
  return (
    <InterruptFrame
      interrupt={interrupt}
      variantClassNames={['sb-task', className]}
      title={
        <>
          <InterruptSource interrupt={interrupt} /> is still working on a task
        </>
      }
    >
      <InterruptNotes interrupt={interrupt} />
      <div className="sb-actions">
        <button
          type="button"
          className="sb-button sb-button--primary"
          disabled={pending}
          onClick={() => answer('approve')}
        >
          Keep waiting
        </button>
        <button
          type="button"
          className="sb-button"
          disabled={pending}
          onClick={() => answer('cancel')}
        >
          Cancel task
        </button>
      </div>
    </InterruptFrame>
  );
}
