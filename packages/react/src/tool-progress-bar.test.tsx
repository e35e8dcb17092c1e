import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolProgressBar } from './tool-progress-bar.tsx';

describe('ToolProgressBar', () => {
  afterEach(() => {
    cleanup();
  });

  it('shows a determinate bar with percentage text for screen readers and the message', () => {
    const { container } = render(
      <ToolProgressBar progress={{ progress: 3, total: 8, message: 'Indexing files' }} />,
    );
    const bar = container.querySelector('progress');
    expect(bar?.getAttribute('value')).toBe('3');
    expect(bar?.getAttribute('max')).toBe('8');
    expect(bar?.getAttribute('aria-valuetext')).toBe('38%: Indexing files');
    expect(container.textContent).toContain('Indexing files');
  });

  it('is indeterminate (no value) when the total is unknown', () => {
    const { container } = render(<ToolProgressBar progress={{ progress: 5 }} />);
    const bar = container.querySelector('progress');
    expect(bar?.hasAttribute('value')).toBe(false);
    expect(bar?.hasAttribute('max')).toBe(false);
    expect(bar?.getAttribute('aria-valuetext')).toBe('In progress (5 so far)');
    expect(bar?.getAttribute('aria-label')).toBe('Tool progress');
  });

  it("shows an MCP task's status, and says it instead of a poll count", () => {
    const { container } = render(
      <ToolProgressBar
        progress={{
          progress: 4,
          message: 'Step 2 of 8',
          task: { taskId: 'task-1', status: 'input_required' },
        }}
      />,
    );
    const status = container.querySelector('.sb-progress-task');
    expect(status?.textContent).toBe('Task input required');
    expect(status?.getAttribute('data-task-status')).toBe('input_required');
    expect(container.querySelector('progress')?.getAttribute('aria-valuetext')).toBe(
      'Task input required: Step 2 of 8',
    );
  });

  it('clamps progress beyond the total', () => {
    const { container } = render(<ToolProgressBar progress={{ progress: 12, total: 10 }} />);
    expect(container.querySelector('progress')?.getAttribute('aria-valuetext')).toBe('100%');
  });
});
