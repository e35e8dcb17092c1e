import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../history/history-store.ts';
import type { FunctionCallItem } from '../vocabulary/items.ts';
import type { ChatMessage } from './chat-message.ts';
import { fillServers } from './chat-reducer.ts';
import { storedView } from './stored-view.ts';

const DELETE: FunctionCallItem = {
  type: 'function_call',
  callId: 'c1',
  name: 'demo_delete_file',
  arguments: '{"path":"a.txt"}',
};
const WEATHER: FunctionCallItem = {
  type: 'function_call',
  callId: 'c2',
  name: 'demo_get_weather',
  arguments: '{}',
};

const RUN: RunRecord = {
  runId: 'r1',
  threadId: 't1',
  status: 'paused',
  items: [
    { type: 'message', role: 'user', content: 'go' },
    WEATHER,
    { type: 'function_call_output', callId: 'c2', output: { text: 'Sunny.' } },
    DELETE,
  ],
  state: {
    version: 1,
    pending: [
      {
        call: DELETE,
        interrupt: {
          callId: 'c1',
          toolName: 'demo_delete_file',
          arguments: { path: 'a.txt' },
          mode: 'approval',
          server: 'held-server',
        },
      },
    ],
  },
  createdAt: 1,
  updatedAt: 1,
};

function servers(messages: readonly ChatMessage[]) {
  return messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.server] : [])),
  );
}

describe('storedView', () => {
  it('keeps "on <server>" on reloaded cards: the held interrupt first, then the tool lists', () => {
    const view = storedView([RUN], false, (part) =>
      part.toolName.startsWith('demo_') ? 'demo' : undefined,
    );
    // c2 from the tool lists, c1 from its stored interrupt.
    expect(servers(view.messages)).toEqual(['demo', 'held-server']);
  });

  it('shows no server when no source knows the tool', () => {
    const view = storedView([{ ...RUN, status: 'completed' }], false);
    expect(servers(view.messages)).toEqual([undefined, undefined]);
  });
});

describe('fillServers', () => {
  it('fills only parts without a server, and returns the messages themselves otherwise', () => {
    const { messages } = storedView([RUN], false);
    const filled = fillServers(messages, () => 'late');
    expect(servers(filled)).toEqual(['late', 'held-server']);
    expect(fillServers(filled, () => 'other')).toBe(filled);
    expect(fillServers(messages, () => undefined)).toBe(messages);
  });
});
