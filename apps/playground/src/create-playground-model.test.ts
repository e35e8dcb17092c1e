import {
  ANTHROPIC_ATTACHMENT_LIMITS,
  OPENAI_CHAT_ATTACHMENT_LIMITS,
  OPENAI_RESPONSES_ATTACHMENT_LIMITS,
} from '@switchboard/core';
import { describe, expect, it } from 'vitest';
import { createPlaygroundModel } from './create-playground-model.ts';
import { defaultModelSettings, type ModelSettings } from './model-settings.ts';

function settingsFor(provider: ModelSettings['provider']): ModelSettings {
  return { ...defaultModelSettings, provider };
}

describe('createPlaygroundModel', () => {
  it('declares the attachment limits of each provider before its SDK is loaded', () => {
    const scripted = 'http://127.0.0.1:1/v1';
    expect(createPlaygroundModel(settingsFor('scripted'), scripted).attachmentLimits).toBe(
      OPENAI_CHAT_ATTACHMENT_LIMITS,
    );
    expect(createPlaygroundModel(settingsFor('openai'), scripted).attachmentLimits).toBe(
      OPENAI_RESPONSES_ATTACHMENT_LIMITS,
    );
    // The Anthropic model is a lazy wrapper: its SDK loads on the first call, yet the agent
    // checks files against the limits before any call.
    const anthropic = createPlaygroundModel(settingsFor('anthropic'), scripted);
    expect(anthropic.provider).toBe('anthropic');
    expect(anthropic.attachmentLimits).toBe(ANTHROPIC_ATTACHMENT_LIMITS);
  });
});
