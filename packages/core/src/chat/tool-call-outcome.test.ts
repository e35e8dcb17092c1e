import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import { chatMessagesFromItems, type ChatMessage, type ChatToolCallPart } from './chat-message.ts';
import { closeOpenCalls } from './chat-reducer.ts';
import { toolCallOutcome } from './tool-call-outcome.ts';

function part(state: ChatToolCallPart['state'], output?: ToolOutput): ChatToolCallPart {
  return {
    type: 'tool-call',
    callId: 'c1',
    toolName: 'add',
    arguments: {},
    state,
    ...(output === undefined ? {} : { output }),
  };
}

describe('toolCallOutcome', () => {
  it('is the state for calls that did not fail', () => {
    expect(toolCallOutcome(part('running'))).toBe('running');
    expect(toolCallOutcome(part('waiting'))).toBe('waiting');
    expect(toolCallOutcome(part('done', { text: '5' }))).toBe('done');
  });

  it.each([
    [toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish), 'stopped'],
    [toolError('aborted', 'Aborted.'), 'stopped'],
    [toolError('cancelled', TOOL_ERROR_TEXT.cancelled), 'cancelled'],
    [toolError('rejected', TOOL_ERROR_TEXT.rejected), 'declined'],
    [toolError('declined', 'The user declined to sign in.'), 'declined'],
    [toolError('unanswered', TOOL_ERROR_TEXT.unanswered), 'unanswered'],
    [toolError('outcome_unknown', TOOL_ERROR_TEXT.outcomeUnknown), 'outcome_unknown'],
    [toolError('tool_execution_failed', 'Boom.'), 'error'],
    [toolError('failed', TOOL_ERROR_TEXT.failedBeforeFinish), 'error'],
    [{ text: 'No code.', isError: true }, 'error'],
  ] as const)('reads %j as %s', (output, outcome) => {
    expect(toolCallOutcome(part('error', output))).toBe(outcome);
  });

  it('is the same for a call the live chat closed and the same call reloaded', () => {
    const running = [{ id: 'a', role: 'assistant' as const, parts: [part('running')] }];
    const waiting = [{ id: 'a', role: 'assistant' as const, parts: [part('waiting')] }];
    const outcomeOf = (messages: readonly ChatMessage[]) => {
      const first = messages[0]?.parts[0];
      return first?.type === 'tool-call' ? toolCallOutcome(first) : undefined;
    };
    const stored = (output: ToolOutput) =>
      chatMessagesFromItems([
        { type: 'function_call', callId: 'c1', name: 'add', arguments: '{}' },
        { type: 'function_call_output', callId: 'c1', output },
      ]);

    expect(outcomeOf(closeOpenCalls(running, 'stopped'))).toBe('stopped');
    expect(outcomeOf(stored(toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish)))).toBe(
      'stopped',
    );
    expect(outcomeOf(closeOpenCalls(waiting, 'unanswered'))).toBe('unanswered');
    expect(outcomeOf(stored(toolError('unanswered', TOOL_ERROR_TEXT.unanswered)))).toBe(
      'unanswered',
    );
  });
});
