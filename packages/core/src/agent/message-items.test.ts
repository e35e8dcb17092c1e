import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { toMessageItems } from './message-items.ts';

describe('toMessageItems', () => {
  it('makes a string a user message and keeps items as they are', () => {
    const assistant = { type: 'message', role: 'assistant', content: 'Hi' } as const;
    expect(toMessageItems('Hello')).toEqual([{ type: 'message', role: 'user', content: 'Hello' }]);
    expect(toMessageItems(['Hello', assistant])).toEqual([
      { type: 'message', role: 'user', content: 'Hello' },
      assistant,
    ]);
  });

  it("keeps a message input's resources as parts and leaves its files out", () => {
    const resource = { type: 'resource', uri: 'file:///notes.txt', text: 'notes' } as const;
    const file = new Blob(['x'], { type: 'text/plain' });
    expect(
      toMessageItems([
        { content: 'See these', resources: [resource], attachments: [file] },
        { content: 'And this', attachments: [file] },
      ]),
    ).toEqual([
      { type: 'message', role: 'user', content: 'See these', parts: [resource] },
      { type: 'message', role: 'user', content: 'And this' },
    ]);
  });

  it('refuses no message at all', () => {
    let error: unknown;
    try {
      toMessageItems([]);
    } catch (caught) {
      error = caught;
    }
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
  });
});
