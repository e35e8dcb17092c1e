/**
 * Anthropic provider of `@switchboard/core/anthropic` (needs the optional peer dependency
 * `@anthropic-ai/sdk`).
 */
export { anthropicModel, type AnthropicModelOptions } from './anthropic-model.ts';
export { toAnthropicMessages, type AnthropicConversation } from './to-anthropic-messages.ts';
