import type { ChatToolCallPart } from '@switchboard/core';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolCallCard } from './tool-call-card.tsx';

function card(part: Partial<ChatToolCallPart>) {
  render(
    <ToolCallCard
      part={{
        type: 'tool-call',
        callId: 'c1',
        toolName: 'demo_slow_count',
        arguments: {},
        state: 'error',
        ...part,
      }}
    />,
  );
  return screen.getByTestId('tool-call');
}

describe('ToolCallCard', () => {
  afterEach(() => {
    cleanup();
  });

  it.each([
    [{ code: 'cancelled', text: 'The run was stopped before this tool call finished.' }, 'Stopped'],
    [{ code: 'cancelled', text: 'The user cancelled this tool call.' }, 'Cancelled'],
    [{ code: 'rejected', text: 'The user declined this tool call.' }, 'Declined'],
    [{ code: 'declined', text: 'The user declined to sign in.' }, 'Declined'],
    [{ code: 'unanswered', text: 'The user did not answer.' }, 'Not answered'],
    [{ code: 'outcome_unknown', text: 'The outcome is unknown.' }, 'Outcome unknown'],
    [{ code: 'tool_execution_failed', text: 'Boom.' }, 'Error'],
  ])('labels an error output of %j "%s"', ({ code, text }, label) => {
    const article = card({ output: { text, isError: true, error: { code, message: text } } });
    expect(screen.getByTestId('tool-call-state').textContent).toBe(label);
    // data-state stays the chat's state, for the specs that wait on it.
    expect(article.getAttribute('data-state')).toBe('error');
  });

  it('says when an MCP Apps view asked for the call, and only then', () => {
    card({
      state: 'done',
      output: { text: 'Ordered.' },
      requestedBy: { server: 'apps', toolName: 'apps_order_form', callId: 'c0' },
    });
    expect(screen.getByTestId('tool-call-requested-by').textContent).toBe(
      'Requested by the app’s view of apps_order_form, not by the model.',
    );
    cleanup();
    card({ state: 'done', output: { text: '5' } });
    expect(screen.queryByTestId('tool-call-requested-by')).toBeNull();
  });

  it('keeps Done, Running and Waiting labels and shows the server', () => {
    card({ state: 'done', output: { text: '5' }, server: 'demo' });
    expect(screen.getByTestId('tool-call-state').textContent).toBe('Done');
    expect(screen.getByText('on demo')).toBeTruthy();
  });
});
