import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Model, ModelEvent, ModelRequest } from '../model/model.ts';

/**
 * One model call's answer: the events to stream, or a function of the request that returns
 * them (to answer from what the model was sent, e.g. echo a tool output).
 */
export type MockTurn = readonly ModelEvent[] | ((request: ModelRequest) => readonly ModelEvent[]);

/** A {@link Model} that replays scripted turns in process, and records what it was asked. */
export interface MockModel extends Model {
  /** Every request the agent made, in order (items and tools as the agent sent them). */
  readonly requests: readonly ModelRequest[];
}

/** Options of {@link mockModel}. */
export interface MockModelOptions {
  /** `Model.modelId`. Default `mock`. */
  modelId?: string;
}

/**
 * An in-process model for an app's own tests: call N streams `turns[N]`, with no network and no
 * provider SDK. Use {@link textTurn} and {@link toolCallTurn} to write turns. A call past the
 * last turn fails the run with `model_error`; an aborted signal ends the stream with `aborted`
 * (as a real adapter does).
 *
 * ```ts
 * const model = mockModel([toolCallTurn('get_time', {}), textTurn('It is noon.')]);
 * const agent = new Agent({ name: 'test', model, tools: [getTime] });
 * ```
 */
export function mockModel(turns: readonly MockTurn[], options: MockModelOptions = {}): MockModel {
  const requests: ModelRequest[] = [];
  return {
    provider: 'mock',
    modelId: options.modelId ?? 'mock',
    requests,
    async *stream(request, { signal }) {
      const index = requests.length;
      requests.push(request);
      const turn = turns[index];
      if (turn === undefined) {
        throw new SwitchboardError(
          'model_error',
          `mockModel has ${turns.length} turn(s); call ${index + 1} has none.`,
        );
      }
      const events = typeof turn === 'function' ? turn(request) : turn;
      for (const event of events) {
        // A real stream yields to the event loop between chunks; so does this one, so `stop()`
        // and concurrent work interleave as they would against a provider.
        await Promise.resolve();
        if (signal.aborted) throw new SwitchboardError('aborted', 'The model call was aborted.');
        yield event;
      }
    },
  };
}

/** A turn that answers with `text` (as one delta), then ends. */
export function textTurn(text: string): readonly ModelEvent[] {
  return [
    { type: 'text.delta', delta: text },
    { type: 'done', usage: { inputTokens: 0, outputTokens: 0 } },
  ];
}

/**
 * A turn that calls one tool, or several in parallel: `toolCallTurn('get_time', {})` or
 * `toolCallTurn([{ name: 'a', arguments: {} }, { name: 'b', arguments: { x: 1 } }])`. Call ids
 * are `call_1`, `call_2`, … unless given.
 */
export function toolCallTurn(
  nameOrCalls: string | readonly { name: string; arguments: unknown; callId?: string }[],
  args?: unknown,
): readonly ModelEvent[] {
  const calls =
    typeof nameOrCalls === 'string' ? [{ name: nameOrCalls, arguments: args ?? {} }] : nameOrCalls;
  return [
    ...calls.map((call): ModelEvent => ({
      type: 'tool.call',
      callId: ('callId' in call ? call.callId : undefined) ?? nextCallId(),
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    })),
    { type: 'done', usage: { inputTokens: 0, outputTokens: 0 } },
  ];
}

/**
 * A turn whose model call fails before any output, as a provider adapter reports it: a
 * `model_error` with `details.status` (and `retryAfterMs` in ms, `overloaded`) — e.g.
 * `failedTurn(429, { retryAfterMs: 0 })`, then `textTurn('…')`, to test how an app shows the
 * agent's `model.retry` (see `ModelRetryPolicy`: 408, 409, 429 and 5xx are retried, other
 * statuses are not).
 */
export function failedTurn(
  status: number,
  facts: { retryAfterMs?: number; overloaded?: boolean } = {},
): MockTurn {
  return () => {
    throw new SwitchboardError('model_error', `The mock model failed (HTTP ${status}).`, {
      details: { status, ...facts },
    });
  };
}

let callCounter = 0;

/** Call ids unique across turns and models in one process (a model never reuses one in a thread). */
function nextCallId(): string {
  callCounter += 1;
  return `call_${callCounter}`;
}
