export { Agent } from './agent/agent.ts';
export type {
  AgentOptions,
  ApprovalPolicy,
  ExecuteInput,
  MessageInput,
} from './agent/agent-options.ts';
export type { AgentHooks, BeforeToolCallDecision, HookScope } from './agent/hooks.ts';
export { TOOL_SEARCH_NAME } from './agent/toolset.ts';
export { ToolSearchIndex, type SearchableTool } from './tools/tool-search-index.ts';
export { destructiveToolsNeedApproval } from './agent/approval-policies.ts';
export type {
  Chunk,
  ChunkBase,
  ReasoningDeltaChunk,
  RunCancelledChunk,
  RunCompletedChunk,
  RunFailedChunk,
  RunPausedChunk,
  RunStartedChunk,
  TextDeltaChunk,
  TextDoneChunk,
  ToolCallChunk,
  ToolProgressChunk,
  ServerNeedsAuthChunk,
  ToolResultChunk,
} from './agent/chunks.ts';
export type { RunHandle, RunOutcome, RunResult } from './agent/run-result.ts';
export { AgentChat, type ChatSnapshot, type ChatStatus } from './chat/agent-chat.ts';
export {
  chatMessagesFromItems,
  type ChatMessage,
  type ChatPart,
  type ChatToolCallPart,
  type ChatToolProgress,
} from './chat/chat-message.ts';
export {
  SwitchboardError,
  isSwitchboardError,
  type SwitchboardErrorCode,
  type SwitchboardErrorDetails,
  type SwitchboardErrorDetailsOf,
} from './errors/switchboard-error.ts';
export type {
  CompareAndSetResult,
  HistoryStore,
  PendingCall,
  RunLease,
  RunRecord,
  RunState,
  RunStatus,
  ThreadSummary,
} from './history/history-store.ts';
export { Store } from './internal/store.ts';
export { MemoryHistoryStore } from './history/memory-history-store.ts';
export {
  IndexedDbHistoryStore,
  type IndexedDbHistoryStoreOptions,
} from './history/indexeddb-history-store.ts';
export type {
  FunctionCallItem,
  FunctionCallOutputItem,
  Item,
  MessageItem,
  ReasoningItem,
  ToolOutput,
  ToolResultPart,
  Usage,
} from './vocabulary/items.ts';
export type {
  InputRequest,
  Interrupt,
  JsonSchema,
  Resolution,
  ToolAnnotations,
  ToolInterruptResult,
  ToolResume,
} from './vocabulary/interrupts.ts';
export {
  McpServer,
  mcpServer,
  type McpAuthorizeOutcome,
  type McpHeaders,
  type McpServerOptions,
  type McpServerSnapshot,
  type McpServerStatus,
  type McpToolDescriptor,
  type McpTransportKind,
  type ToolNameList,
} from './mcp/mcp-server.ts';
export { mapCallToolResult } from './mcp/map-call-tool-result.ts';
export { isProviderSafeToolName, mapProviderToolNames } from './mcp/provider-tool-names.ts';
export type { SchemaCache, SchemaCacheCallOptions, SchemaCacheEntry } from './mcp/schema-cache.ts';
export { MemorySchemaCache, type MemorySchemaCacheOptions } from './mcp/memory-schema-cache.ts';
export {
  IndexedDbSchemaCache,
  type IndexedDbSchemaCacheOptions,
} from './mcp/indexeddb-schema-cache.ts';
export { schemaCacheKey, type SchemaCacheKeyInput } from './mcp/schema-cache-key.ts';
export type { Model, ModelEvent, ModelRequest, ModelToolDefinition } from './model/model.ts';
export {
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
  type ModelTimeouts,
} from './model/model-request-clock.ts';
export { tool, type ToolOptions } from './tools/tool.ts';
export {
  isDeclaredDestructive,
  isDestructive,
  isIdempotent,
  isOpenWorld,
  isReadOnly,
} from './tools/tool-annotations.ts';
export {
  isToolInterruptResult,
  type ApprovalPredicate,
  type Tool,
  type ToolContext,
  type ToolProgress,
} from './tools/tool-types.ts';
export type {
  InteractiveOAuthProvider,
  OAuthAccountState,
} from './oauth/interactive-oauth-provider.ts';
export {
  browserOAuthProvider,
  type BrowserOAuthProviderOptions,
} from './oauth/browser-oauth-provider.ts';
export {
  completeOAuthRedirect,
  type CompleteOAuthRedirectOptions,
  type CompleteOAuthRedirectOutcome,
} from './oauth/complete-oauth-redirect.ts';
export type { OAuthClientSettings, PreRegisteredClient } from './oauth/oauth-client-settings.ts';
export type { AuthorizationFailureReason } from './oauth/authorization-callback.ts';
export type {
  OAuthCredentialStore,
  OAuthFlowState,
  OAuthFlowStore,
  OAuthIssuerCredentials,
  OAuthServerCredentials,
  OAuthStore,
  SavedOAuthTokens,
} from './oauth/oauth-stores.ts';
export { MemoryOAuthStore } from './oauth/memory-oauth-store.ts';
export {
  StoredOAuthProvider,
  type OAuthCredentialScope,
  type StoredOAuthProviderOptions,
} from './oauth/stored-oauth-provider.ts';
export {
  IndexedDbOAuthCredentialStore,
  type IndexedDbOAuthCredentialStoreOptions,
} from './oauth/indexeddb-oauth-credential-store.ts';
export {
  SessionStorageOAuthFlowStore,
  type SessionStorageOAuthFlowStoreOptions,
} from './oauth/session-storage-oauth-flow-store.ts';
export type { RefreshLock } from './oauth/refresh-lock.ts';
export type { OAuthChangeChannel } from './oauth/oauth-change-channel.ts';
