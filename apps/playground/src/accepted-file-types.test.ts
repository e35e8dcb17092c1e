import {
  Agent,
  ANTHROPIC_ATTACHMENT_LIMITS,
  MemoryHistoryStore,
  OPENAI_CHAT_ATTACHMENT_LIMITS,
  type Model,
} from '@switchboard/core';
import { describe, expect, it } from 'vitest';
import { acceptAttribute, describeAcceptedTypes } from './accepted-file-types.ts';

const MB = 1024 * 1024;

function modelWith(attachmentLimits: Readonly<Record<string, number>>): Model {
  return {
    provider: 'test',
    modelId: 'm',
    attachmentLimits,
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error('not called');
    },
  };
}

describe('accepted file types', () => {
  it('the scripted (Chat Completions) model: images and PDF, no plain text', () => {
    const agent = new Agent({
      name: 'p',
      model: modelWith(OPENAI_CHAT_ATTACHMENT_LIMITS),
      history: new MemoryHistoryStore(),
    });
    const accepted = agent.acceptedAttachments();
    expect(acceptAttribute(accepted)).toBe(
      'image/png,image/jpeg,image/gif,image/webp,application/pdf',
    );
    expect(describeAcceptedTypes(accepted)).toBe('Accepts PNG, JPEG, GIF, WebP, PDF up to 20 MB.');
  });

  it('groups types by their limit (Anthropic) and names unknown types by MIME type', () => {
    const accepted = [
      ...new Agent({
        name: 'p',
        model: modelWith(ANTHROPIC_ATTACHMENT_LIMITS),
      }).acceptedAttachments(),
      { mimeType: 'audio/wav', maxBytes: 512 * 1024 },
    ];
    expect(describeAcceptedTypes(accepted)).toBe(
      'Accepts PNG, JPEG, GIF, WebP up to 3.8 MB; PDF, plain text up to 20 MB; audio/wav up to 512 KB.',
    );
    expect(acceptAttribute(accepted)).toContain('text/plain');
    expect(accepted.find((entry) => entry.mimeType === 'image/png')?.maxBytes).toBe(
      (5 * MB * 3) / 4,
    );
  });

  it('says when the model takes no files', () => {
    expect(describeAcceptedTypes([])).toBe('This model accepts no files.');
    expect(acceptAttribute([])).toBe('');
  });
});
