import { toolCallOutcome, type ChatToolCallPart } from '@switchboard/core';
import { ToolProgressBar } from '@switchboard/react';
import { outcomeLabels } from './tool-call-outcome.ts';
import { McpAppSlot } from './mcp-app-slot.tsx';
import { McpWaitingNotice } from './mcp-waiting-notice.tsx';
import { NestedRunView } from './nested-run-view.tsx';
import { formatArguments, ToolOutputView } from './tool-output-view.tsx';

/**
 * One tool call of the chat: name, server, arguments (pretty JSON), outcome (Stopped, Declined,
 * … are not "Error": `toolCallOutcome`), a live progress bar
 * while it runs, what a sub-agent did (its text and calls, nested), and the result. Everything the tool or the model sent is rendered as text.
 */
export function ToolCallCard({ part }: { part: ChatToolCallPart }) {
  const { output, progress } = part;
  const outcome = toolCallOutcome(part);
  return (
    <article
      className={`tool-call tool-call--${part.state} tool-call--${outcome}`}
      data-testid="tool-call"
      data-tool-name={part.toolName}
      data-state={part.state}
      data-outcome={outcome}
    >
      <header className="tool-call__header">
        <span className="tool-call__kind">Tool call</span>
        <code className="tool-call__name" data-testid="tool-call-name">
          {part.toolName}
        </code>
        {part.server !== undefined && <span className="tool-call__server">on {part.server}</span>}
        <span className={`badge badge--${outcome}`} data-testid="tool-call-state">
          {outcomeLabels[outcome]}
        </span>
      </header>
      <details className="tool-call__arguments" open>
        <summary>Arguments</summary>
        <pre className="code-block" data-testid="tool-call-arguments">
          {formatArguments(part.arguments)}
        </pre>
      </details>
      {part.state === 'running' && (
        <McpWaitingNotice serverName={part.server} callId={part.callId} />
      )}
      {progress !== undefined && part.state === 'running' && (
        <div data-testid="tool-call-progress">
          <ToolProgressBar progress={progress} label={`Progress of ${part.toolName}`} />
        </div>
      )}
      {part.requestedBy !== undefined && (
        <p className="tool-call__origin muted" data-testid="tool-call-requested-by">
          Requested by the app’s view of {part.requestedBy.toolName}, not by the model.
        </p>
      )}
      {/* A call a view made is shown in that view; it mounts no second one. */}
      {part.ui !== undefined && part.requestedBy === undefined && (
        <McpAppSlot
          serverName={part.server}
          toolName={part.toolName}
          inThread
          callId={part.callId}
          resourceUri={part.ui.resourceUri}
          input={part.arguments}
          // A call that ended without running to a result is `tool-cancelled` for the view.
          output={endedWithoutResult(outcome) ? undefined : output}
          cancelled={endedWithoutResult(outcome)}
        />
      )}
      {part.nested !== undefined && (
        <NestedRunView
          agentName={part.toolName}
          messages={part.nested}
          renderCall={(nested) => <ToolCallCard part={nested} />}
        />
      )}
      {output !== undefined && (
        <ToolOutputView
          output={output}
          {...(part.server === undefined ? {} : { server: part.server })}
        />
      )}
    </article>
  );
}

function endedWithoutResult(outcome: ReturnType<typeof toolCallOutcome>): boolean {
  return (
    outcome === 'stopped' ||
    outcome === 'declined' ||
    outcome === 'cancelled' ||
    outcome === 'unanswered'
  );
}
