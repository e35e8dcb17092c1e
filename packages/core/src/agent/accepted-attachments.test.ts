import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Model } from '../model/model.ts';
import {
  ANTHROPIC_ATTACHMENT_LIMITS,
  OPENAI_CHAT_ATTACHMENT_LIMITS,
} from '../model/provider-attachment-limits.ts';
import { Agent } from './agent.ts';
import { acceptedAttachments, checkAttachments } from './attachment-input.ts';

const MB = 1024 * 1024;

/** A model that is never called: only its declared limits matter here. */
function modelWith(modelId: string, attachmentLimits?: Readonly<Record<string, number>>): Model {
  return {
    provider: 'test',
    modelId,
    ...(attachmentLimits === undefined ? {} : { attachmentLimits }),
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error('not called');
    },
  };
}

const store = new MemoryHistoryStore().attachments;

describe('acceptedAttachments', () => {
  it("lists the model's types capped by maxBytes; Chat Completions takes no text/plain", () => {
    const accepted = acceptedAttachments({
      models: [modelWith('chat', OPENAI_CHAT_ATTACHMENT_LIMITS)],
      maxBytes: 20 * MB,
      store,
    });
    expect(accepted).toEqual([
      { mimeType: 'image/png', maxBytes: 20 * MB },
      { mimeType: 'image/jpeg', maxBytes: 20 * MB },
      { mimeType: 'image/gif', maxBytes: 20 * MB },
      { mimeType: 'image/webp', maxBytes: 20 * MB },
      { mimeType: 'application/pdf', maxBytes: 20 * MB },
    ]);
  });

  it('keeps only what every fallback accepts too, at the smallest limit', () => {
    const accepted = acceptedAttachments({
      models: [
        modelWith('anthropic', ANTHROPIC_ATTACHMENT_LIMITS),
        modelWith('chat', OPENAI_CHAT_ATTACHMENT_LIMITS),
      ],
      maxBytes: 20 * MB,
      store,
    });
    expect(accepted.map((entry) => entry.mimeType)).not.toContain('text/plain');
    expect(accepted).toContainEqual({ mimeType: 'image/png', maxBytes: (5 * MB * 3) / 4 });
    expect(accepted).toContainEqual({ mimeType: 'application/pdf', maxBytes: 20 * MB });
  });

  it('is empty for a model without limits, and for a store that keeps no attachments', () => {
    expect(acceptedAttachments({ models: [modelWith('plain')], maxBytes: MB, store })).toEqual([]);
    const models = [modelWith('chat', OPENAI_CHAT_ATTACHMENT_LIMITS)];
    expect(acceptedAttachments({ models, maxBytes: MB, store: undefined })).toEqual([]);
  });

  it('agrees with checkAttachments: an accepted type at its limit passes, others are refused', () => {
    const context = {
      models: [modelWith('chat', OPENAI_CHAT_ATTACHMENT_LIMITS)],
      maxBytes: 64,
      store,
    };
    for (const { mimeType, maxBytes } of acceptedAttachments(context)) {
      const bytes = new Blob([new Uint8Array(maxBytes)], { type: mimeType });
      expect(() =>
        checkAttachments([{ name: 'f', mimeType, data: bytes }], 0, context),
      ).not.toThrow();
      const over = new Blob([new Uint8Array(maxBytes + 1)], { type: mimeType });
      expect(() => checkAttachments([{ name: 'f', mimeType, data: over }], 0, context)).toThrow();
    }
    const text = new Blob(['hello'], { type: 'text/plain' });
    let refused: unknown;
    try {
      checkAttachments([{ name: 'notes.txt', mimeType: 'text/plain', data: text }], 0, context);
    } catch (error) {
      refused = error;
    }
    expect(isSwitchboardError(refused, 'invalid_input')).toBe(true);
  });

  it('Agent.acceptedAttachments uses its model, fallbacks and maxAttachmentBytes', () => {
    const agent = new Agent({
      name: 'a',
      model: modelWith('responses', { ...OPENAI_CHAT_ATTACHMENT_LIMITS, 'text/plain': 50 * MB }),
      fallbackModels: [modelWith('chat', OPENAI_CHAT_ATTACHMENT_LIMITS)],
      maxAttachmentBytes: 2 * MB,
    });
    const types = agent.acceptedAttachments().map((entry) => entry.mimeType);
    expect(types).toContain('application/pdf');
    expect(types).not.toContain('text/plain');
    expect(agent.acceptedAttachments([])).toContainEqual({
      mimeType: 'text/plain',
      maxBytes: 2 * MB,
    });
  });
});
