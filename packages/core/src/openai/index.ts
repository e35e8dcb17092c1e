export { openaiChatModel, type OpenAIChatModelOptions } from './openai-chat-model.ts';
export { toChatMessages } from './to-chat-messages.ts';
export {
  openaiResponsesModel,
  type OpenAIResponsesModelOptions,
} from './openai-responses-model.ts';
export { toResponsesInput } from './to-responses-input.ts';
