/**
 * Test and offline-playground helpers of `@switchboard/core/testing`.
 */
export { startScriptedModelServer } from './scripted-model-server.ts';
export type {
  ChatRequestRecord,
  ScriptedModelServer,
  ScriptedModelServerOptions,
  ScriptedRequestRecord,
} from './scripted-model-server.ts';
export { defaultModelScript, scriptFromReplies } from './model-script.ts';
export type {
  ChatContentPart,
  ChatRequest,
  ChatRequestMessage,
  ChatRequestToolCall,
  ChatTool,
  ModelScript,
  ModelScriptRequest,
  ScriptedReply,
  ScriptedToolCall,
  ScriptedUsage,
  WireFormat,
} from './model-script.ts';
export type {
  ResponsesContentPart,
  ResponsesInputItem,
  ResponsesRequest,
  ResponsesTool,
} from './wire/responses.ts';
export type {
  AnthropicContentBlock,
  AnthropicMessagesRequest,
  AnthropicRequestMessage,
  AnthropicTool,
} from './wire/anthropic-messages.ts';
export { startEverythingServer, stopProcess } from './everything-server.ts';
export type { EverythingServer, EverythingServerOptions } from './everything-server.ts';
export { findFreePort } from './free-port.ts';
export { startDemoServer } from './demo-server/start-demo-server.ts';
export type {
  DemoOAuthOptions,
  DemoServer,
  DemoServerOptions,
} from './demo-server/start-demo-server.ts';
export type {
  FaultSwitches,
  GetStreamFault,
  RefuseInitializeFault,
} from './demo-server/fault-switches.ts';
export type { RequestLogEntry } from './demo-server/request-log.ts';
export { startTestAuthorizationServer } from './oauth/test-authorization-server.ts';
export type {
  AuthorizationServerRequest,
  PreRegisteredClient,
  TestAuthorizationServer,
  TestAuthorizationServerOptions,
  VerifiedAccessToken,
} from './oauth/test-authorization-server.ts';
