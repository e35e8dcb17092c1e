export { openaiChatModel, type OpenAIChatModelOptions } from './openai-chat-model.ts';
export { toChatMessages } from './to-chat-messages.ts';
