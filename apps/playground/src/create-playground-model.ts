import { ANTHROPIC_ATTACHMENT_LIMITS, type Model } from '@switchboard/core';
import { openaiChatModel, openaiResponsesModel } from '@switchboard/core/openai';
import type { ModelSettings } from './model-settings.ts';

/**
 * The model the settings select:
 * - `scripted`: the local scripted model server (OpenAI Chat Completions wire format, no LLM);
 * - `openai`: OpenAI's Responses API (`openaiResponsesModel`);
 * - `anthropic`: Anthropic's Messages API (`anthropicModel`);
 * - `openai-compatible`: any Chat Completions endpoint (`openaiChatModel` with a base URL).
 *
 * Keys are the user's own and go only to the provider's base URL (see model-settings.ts).
 */
export function createPlaygroundModel(settings: ModelSettings, scriptedBaseUrl: string): Model {
  if (settings.provider === 'scripted') {
    return openaiChatModel({
      model: 'scripted',
      baseURL: scriptedBaseUrl,
      apiKey: 'not-needed',
      // Local and deterministic: a failure will not go away by retrying.
      maxRetries: 0,
    });
  }
  const fields = settings.providers[settings.provider];
  const model = fields.model.trim();
  const baseURL = fields.baseURL.trim();
  const where = baseURL === '' ? {} : { baseURL };
  // Local servers (Ollama, LM Studio) take any key; the SDKs need a non-empty one.
  const apiKey = fields.apiKey === '' ? 'not-needed' : fields.apiKey;
  switch (settings.provider) {
    case 'openai':
      return openaiResponsesModel({ model, apiKey, ...where });
    case 'anthropic':
      // The Anthropic SDK is loaded when first used: most sessions never need it.
      return lazyModel('anthropic', model, ANTHROPIC_ATTACHMENT_LIMITS, async () => {
        const { anthropicModel } = await import('@switchboard/core/anthropic');
        return anthropicModel({ model, apiKey, ...where });
      });
    case 'openai-compatible':
      return openaiChatModel({ model, apiKey, ...where });
  }
}

/**
 * A model whose implementation (and SDK) is loaded on its first call; a failed load is retried.
 * `attachmentLimits` is declared up front: the agent checks files against it before any call.
 */
function lazyModel(
  provider: string,
  modelId: string,
  attachmentLimits: Model['attachmentLimits'],
  load: () => Promise<Model>,
): Model {
  let loading: Promise<Model> | undefined;
  return {
    provider,
    modelId,
    ...(attachmentLimits === undefined ? {} : { attachmentLimits }),
    async *stream(request, options) {
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      yield* (await loading).stream(request, options);
    },
  };
}
