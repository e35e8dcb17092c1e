/**
 * Test and offline-playground helpers of `@switchboard/core/testing`.
 */
export { startScriptedModelServer } from './scripted-model-server.ts';
export type {
  ChatRequestRecord,
  ScriptedModelServer,
  ScriptedModelServerOptions,
} from './scripted-model-server.ts';
export { defaultModelScript, scriptFromReplies } from './model-script.ts';
export type {
  ChatContentPart,
  ChatRequest,
  ChatRequestMessage,
  ChatRequestToolCall,
  ChatTool,
  ModelScript,
  ScriptedReply,
  ScriptedToolCall,
  ScriptedUsage,
} from './model-script.ts';
export { startEverythingServer, stopProcess } from './everything-server.ts';
export type { EverythingServer, EverythingServerOptions } from './everything-server.ts';
export { findFreePort } from './free-port.ts';
