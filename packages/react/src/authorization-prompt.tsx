import { useState, type ReactNode } from 'react';
import { DeclineAndCancel, InterruptFrame } from './interrupt-frame.tsx';
import { InterruptNotes } from './interrupt-notes.tsx';
import { InterruptSource } from './interrupt-source.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { usePendingAnswer } from './use-pending-answer.ts';

/** Props of {@link AuthorizationPrompt}. */
export interface AuthorizationPromptProps {
  /** An `authorization` interrupt (`mode: 'authorization'`, `server`, `message`). */
  interrupt: Interrupt;
  /**
   * Signs in and resumes, typically `() => agent.authorizeAndResume(interrupt.callId)` from
   * {@link useAgent}. Called straight from the click (a popup needs the click's activation). A
   * rejection (the user closed the popup or denied) is shown, and the prompt stays.
   */
  onAuthorize: () => Promise<unknown>;
  /** Called with `'reject'` (Decline: the call fails as declined) or `'cancel'`. */
  onResolve: ResolveHandler;
  /** Extra class for the root element (`sb-interrupt sb-authorization`). */
  className?: string;
}

/**
 * An MCP server asks the user to sign in before a tool call can run (OAuth, MCP authorization
 * 2025-11-25): "Connect" opens the server's authorization page (a popup, or the whole page when
 * popups are blocked) and, once signed in, makes the call again. Decline and Cancel answer
 * without signing in. Server text is shown as text.
 */
export function AuthorizationPrompt({
  interrupt,
  onAuthorize,
  onResolve,
  className,
}: AuthorizationPromptProps): ReactNode {
  const { pending, answer } = usePendingAnswer(onResolve);
  const [connecting, setConnecting] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);

  const connect = () => {
    if (connecting) return;
    setConnecting(true);
    setFailure(undefined);
    onAuthorize().then(
      () => setConnecting(false),
      (error: unknown) => {
        setConnecting(false);
        setFailure(error instanceof Error ? error.message : String(error));
      },
    );
  };

  return (
    <InterruptFrame
      interrupt={interrupt}
      variantClassNames={['sb-authorization', className]}
      title={
        <>
          <InterruptSource interrupt={interrupt} /> needs you to sign in
        </>
      }
    >
      <InterruptNotes interrupt={interrupt} />
      {failure !== undefined && (
        <p className="sb-url-warning" role="alert">
          {failure}
        </p>
      )}
      <div className="sb-actions">
        <button
          type="button"
          className="sb-button sb-button--primary"
          disabled={pending || connecting}
          onClick={connect}
        >
          {connecting ? 'Connecting…' : 'Connect'}
        </button>
        <DeclineAndCancel disabled={pending || connecting} answer={answer} />
      </div>
    </InterruptFrame>
  );
}
