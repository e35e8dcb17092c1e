import type { ChatToolProgress } from '@switchboard/core';
import type { ReactNode } from 'react';
import { classNames } from './class-names.ts';

/** Props of {@link ToolProgressBar}. */
export interface ToolProgressBarProps {
  /**
   * A tool call's progress (`ChatToolCallPart.progress`): `progress`, `total?`, `message?`, and
   * `task?` (an MCP task's id and status).
   */
  progress: ChatToolProgress;
  /** Accessible name of the bar. Default "Tool progress". */
  label?: string;
  /** Extra class for the root element (`sb-progress`). */
  className?: string;
}

/**
 * A running tool's progress: a `<progress>` bar (indeterminate — no `value` — when `total` is
 * unknown) with the tool's message as text, and `aria-valuetext` saying the percentage (or how
 * far it got) for screen readers. A call following an MCP task (`progress.task`) also shows the
 * task's status (`working`, `input required`, …; element `sb-progress-task`).
 */
export function ToolProgressBar({
  progress,
  label = 'Tool progress',
  className,
}: ToolProgressBarProps): ReactNode {
  const { total, message, task } = progress;
  const determinate = total !== undefined && Number.isFinite(total) && total > 0;
  const value = determinate ? Math.min(Math.max(progress.progress, 0), total) : undefined;
  const percent =
    determinate && value !== undefined ? Math.round((value / total) * 100) : undefined;
  // A task's `progress` counts polls, not work: its status says more.
  const valueText =
    percent !== undefined
      ? `${percent}%`
      : task !== undefined
        ? `Task ${task.status.replace('_', ' ')}`
        : `In progress (${formatNumber(progress.progress)} so far)`;
  return (
    <div className={classNames('sb-progress', className)}>
      <progress
        className="sb-progress-bar"
        aria-label={label}
        aria-valuetext={message === undefined ? valueText : `${valueText}: ${message}`}
        {...(determinate ? { value, max: total } : {})}
      />
      {percent !== undefined && (
        <span className="sb-progress-percent" aria-hidden="true">
          {percent}%
        </span>
      )}
      {task !== undefined && (
        <span className="sb-progress-task" data-task-status={task.status}>
          Task {task.status.replace('_', ' ')}
        </span>
      )}
      {message !== undefined && message !== '' && (
        <span className="sb-progress-message">{message}</span>
      )}
    </div>
  );
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
