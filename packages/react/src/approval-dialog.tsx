import {
  isDestructive,
  isIdempotent,
  isOpenWorld,
  isReadOnly,
  type ToolAnnotations,
} from '@switchboard/core';
import type { ReactNode } from 'react';
import { classNames } from './class-names.ts';
import { InterruptFrame } from './interrupt-frame.tsx';
import { InterruptNotes } from './interrupt-notes.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { usePendingAnswer } from './use-pending-answer.ts';

/** Props of {@link ApprovalDialog}. */
export interface ApprovalDialogProps {
  /** An approval interrupt (`mode: 'approval'`, `toolName`, `server`, `arguments`, `annotations`). */
  interrupt: Interrupt;
  /** Called with `'approve'` or `'reject'`. */
  onResolve: ResolveHandler;
  /** Extra class for the root element (`sb-interrupt sb-approval`). */
  className?: string;
}

interface Hint {
  key: 'read-only' | 'destructive' | 'idempotent' | 'open-world';
  /** The conservative reading (core helpers): true means the riskier side is not ruled out. */
  risky: boolean;
  label: string;
}

/**
 * Asks the human to approve a held tool call: tool name, server, the arguments as pretty JSON
 * text, the server's message if any, and the tool's annotations as badges computed with core's
 * `isReadOnly` / `isDestructive` / `isIdempotent` / `isOpenWorld` — labelled as unverified hints;
 * unset hints show the conservative default ("may be destructive"). Approve and Reject; for a
 * tool that may be destructive, keyboard focus starts on Reject.
 */
export function ApprovalDialog({
  interrupt,
  onResolve,
  className,
}: ApprovalDialogProps): ReactNode {
  const { pending, answer } = usePendingAnswer(onResolve);
  const annotations = interrupt.annotations;
  const destructive = isDestructive(annotations);
  const hints = describeHints(annotations);
  return (
    <InterruptFrame
      interrupt={interrupt}
      variantClassNames={['sb-approval', destructive && 'sb-approval--destructive', className]}
      title={
        <>
          Allow{' '}
          <strong className="sb-interrupt-tool">{annotations?.title ?? interrupt.toolName}</strong>
          {annotations?.title !== undefined && annotations.title !== interrupt.toolName && (
            <>
              {' '}
              (<code className="sb-tool-name">{interrupt.toolName}</code>)
            </>
          )}
          {interrupt.server !== undefined && (
            <>
              {' '}
              from <strong className="sb-interrupt-server">{interrupt.server}</strong>
            </>
          )}
          ?
        </>
      }
    >
      {interrupt.requestedBy !== undefined && (
        <p className="sb-approval-origin" data-requested-by="app-view">
          Requested by the app’s view of{' '}
          <code className="sb-tool-name">{interrupt.requestedBy.toolName}</code>, not by the model.
        </p>
      )}
      <InterruptNotes interrupt={interrupt} />
      <pre className="sb-arguments" aria-label="Arguments">
        {formatArguments(interrupt.arguments)}
      </pre>
      <div className="sb-hints">
        <span className="sb-hints-label">
          Hints from the {interrupt.server === undefined ? 'tool' : 'server'} (not verified):
        </span>{' '}
        <ul className="sb-badges">
          {hints.map((hint) => (
            <li
              key={hint.key}
              className={classNames(
                'sb-badge',
                `sb-badge--${hint.key}`,
                hint.risky && 'sb-badge--risky',
              )}
              data-hint={hint.key}
            >
              {hint.label}
            </li>
          ))}
        </ul>
      </div>
      <div className="sb-actions">
        <button
          type="button"
          className={classNames('sb-button', !destructive && 'sb-button--primary')}
          disabled={pending}
          onClick={() => answer('approve')}
        >
          Approve
        </button>
        <button
          type="button"
          className={classNames('sb-button', destructive && 'sb-button--primary')}
          disabled={pending}
          autoFocus={destructive}
          onClick={() => answer('reject')}
        >
          Reject
        </button>
      </div>
    </InterruptFrame>
  );
}

/** Badges for the four hints; "may …" when the server did not say. */
function describeHints(annotations: ToolAnnotations | undefined): Hint[] {
  const said = (key: keyof ToolAnnotations) => annotations?.[key] !== undefined;
  const readOnly = isReadOnly(annotations);
  const destructive = isDestructive(annotations);
  const idempotent = isIdempotent(annotations);
  const openWorld = isOpenWorld(annotations);
  return [
    {
      key: 'read-only',
      risky: !readOnly,
      label: readOnly ? 'read-only' : said('readOnlyHint') ? 'changes data' : 'may change data',
    },
    {
      key: 'destructive',
      risky: destructive,
      label: !destructive
        ? 'not destructive'
        : said('destructiveHint')
          ? 'destructive'
          : 'may be destructive',
    },
    {
      key: 'idempotent',
      risky: !idempotent,
      label: idempotent
        ? 'idempotent'
        : said('idempotentHint')
          ? 'not idempotent'
          : 'may not be idempotent',
    },
    {
      key: 'open-world',
      risky: openWorld,
      label: !openWorld
        ? 'closed world'
        : said('openWorldHint')
          ? 'open world (reaches outside systems)'
          : 'may reach outside systems',
    },
  ];
}

/** Pretty JSON text of the arguments (a raw string as it is). */
function formatArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
