/**
 * `@switchboard/core`: this file is the complete public surface of the root entry. Anything not
 * exported here is internal and may change in any release, even when it is `export`ed from its
 * own module; deep imports (`@switchboard/core/dist/...`) are not supported. The other entries
 * (`/node`, `/openai`, `/anthropic`, `/server`, `/testing`, `/legacy-sse`) list theirs in their
 * own `index.ts`, and no name means two different things across them (`public-names.test.ts`).
 *
 * What stays out, and why:
 * - The legacy HTTP+SSE transport (`legacySseTransport`, `/legacy-sse`): the SDK's
 *   `SSEClientTransport` brings `eventsource` along, which apps that only reach Streamable HTTP
 *   servers should not ship. Only its factory type (`LegacySseTransportFactory`) is here, for
 *   `McpServerOptions.legacySse`.
 * - Helpers that only core itself calls (`mapCallToolResult`, `mapProviderToolNames`,
 *   `isProviderSafeToolName`, `chatMessagesFromItems`, `isToolInterruptResult`, `messageOf`,
 *   `toolError`): every exported helper pins an implementation, and no app, example, benchmark
 *   or `@switchboard/react` uses them.
 * - The OAuth storage building blocks (`StoredOAuthProvider`, `MemoryOAuthStore`,
 *   `IndexedDbOAuthCredentialStore`, `SessionStorageOAuthFlowStore`, the `OAuthStore`
 *   interfaces, `RefreshLock`, `OAuthChangeChannel`; `FileOAuthCredentialStore` in `/node`) are
 *   not API. No public option accepts them: `browserOAuthProvider()` and `nodeOAuthProvider()`
 *   wire them, and their shapes (database schema, storage keys, the SDK-facing provider) follow
 *   the MCP SDK's `OAuthClientProvider`, which is still moving. An app that keeps tokens
 *   elsewhere implements `OAuthClientProvider` itself and passes it as
 *   `McpServerOptions.authProvider`. Exporting them is a later, additive decision.
 *
 * Errors: `SwitchboardError` with a `code` ({@link SwitchboardErrorCode}) and `details` typed
 * per code ({@link SwitchboardErrorDetails}); test with `isSwitchboardError(error, code)`, which
 * also works across two copies of this package.
 */
export { Agent } from './agent/agent.ts';
export type { AgentEndpoint, AgentThreads } from './agent/agent-endpoint.ts';
export { remoteAgent, type RemoteAgentOptions } from './remote/remote-agent.ts';
export type {
  AgentOptions,
  ApprovalPolicy,
  ExecuteInput,
  MessageInput,
} from './agent/agent-options.ts';
export type { AgentToolOptions } from './agent/agent-as-tool.ts';
export {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  type AcceptedAttachment,
  type AttachmentInput,
  type UserMessageInput,
} from './agent/attachment-input.ts';
export type { AgentHooks, BeforeToolCallDecision, HookScope } from './agent/hooks.ts';
export type { AppToolCallHandle, AppToolCallInput } from './agent/app-tool-call.ts';
export type { AppModelContextInput } from './agent/app-model-context.ts';
export { DEFAULT_MODEL_RETRY_POLICY, type ModelRetryPolicy } from './agent/model-retry-policy.ts';
export { TOOL_SEARCH_NAME } from './agent/toolset.ts';
export { ToolSearchIndex, type SearchableTool } from './tools/tool-search-index.ts';
export { destructiveToolsNeedApproval } from './agent/approval-policies.ts';
export type {
  Chunk,
  ChunkBase,
  ModelFallbackChunk,
  ModelRetryChunk,
  ModelWaitingChunk,
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
  ToolNestedChunk,
} from './agent/chunks.ts';
export type { RunHandle, RunOutcome, RunResult } from './agent/run-result.ts';
export { inProcessSteps, type StepRunner } from './agent/step-runner.ts';
export {
  AgentChat,
  type AgentChatOptions,
  type ChatSendOptions,
  type ChatSnapshot,
  type ChatStatus,
} from './chat/agent-chat.ts';
export type {
  ChatBranch,
  ChatAttachmentPart,
  ChatMessage,
  ChatPart,
  ChatResourcePart,
  ChatToolCallPart,
  ChatToolProgress,
} from './chat/chat-message.ts';
export { toolCallOutcome, type ToolCallOutcome } from './chat/tool-call-outcome.ts';
export type { ChatModelRetry } from './chat/chat-model-retry.ts';
export type { ChatModelWaiting } from './chat/chat-model-waiting.ts';
export {
  SwitchboardError,
  isSwitchboardError,
  type SwitchboardErrorCode,
  type SwitchboardErrorDetails,
  type SwitchboardErrorDetailsOf,
} from './errors/switchboard-error.ts';
export {
  describeError,
  describeToolError,
  type DescribeErrorContext,
  type ErrorDescription,
  type ErrorDescriptionDetails,
  type InvalidField,
} from './errors/describe-error.ts';
export type {
  BranchSelection,
  CompareAndSetResult,
  HistoryStore,
  ModelFailureRecord,
  ParentCallRef,
  PendingCall,
  RunChanges,
  RunLease,
  RunRecord,
  RunState,
  RunStatus,
  ThreadCursor,
  ThreadSummary,
} from './history/history-store.ts';
export { titleFromItems } from './history/history-store.ts';
export type { AttachmentStore } from './history/attachment-store.ts';
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
  MessageAttachmentPart,
  MessageItem,
  MessagePart,
  MessageResourcePart,
  ReasoningItem,
  ToolOutput,
  ToolResultPart,
  Usage,
} from './vocabulary/items.ts';
export type {
  InputRequest,
  Interrupt,
  JsonSchema,
  NestedInterrupt,
  Resolution,
  ToolAnnotations,
  ToolInterruptResult,
  ToolResume,
} from './vocabulary/interrupts.ts';
export type { AppViewRef, ToolCallUi, ToolUi, ToolVisibility } from './vocabulary/tool-ui.ts';
export {
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  isAppVisible,
  isModelVisible,
} from './mcp/apps/tool-ui-meta.ts';
export {
  McpServer,
  mcpServer,
  type McpAuthorizeOutcome,
  type McpCompletion,
  type McpCompletionReference,
  type McpHeaders,
  type McpPrompt,
  type McpPromptArgument,
  type McpPromptMessage,
  type McpPromptResult,
  type McpResource,
  type McpResourceContents,
  type McpResourceSubscription,
  type McpResourceTemplate,
  type ResourceOperationOptions,
  type McpServerOptions,
  type McpServerSnapshot,
  type McpServerStatus,
  type McpToolDescriptor,
  type McpTransportKind,
  type LegacySseTransportFactory,
  type LegacySseTransportOptions,
  type ToolNameList,
} from './mcp/mcp-server.ts';
export { DEFAULT_MAX_RESOURCE_BYTES } from './mcp/resource-types.ts';
export {
  DEFAULT_MCP_WAITING_NOTICE_MS,
  type McpRequestWaiting,
} from './mcp/connection/request-waiting.ts';
export { resourceParts } from './mcp/resource-parts.ts';
export {
  READ_RESOURCE_NAME,
  readResourceTool,
  type ReadResourceToolOptions,
} from './mcp/read-resource-tool.ts';
export type {
  SchemaCache,
  SchemaCacheCallOptions,
  SchemaCacheChange,
  SchemaCacheEntry,
} from './mcp/schema-cache.ts';
export { MemorySchemaCache, type MemorySchemaCacheOptions } from './mcp/memory-schema-cache.ts';
export {
  IndexedDbSchemaCache,
  type IndexedDbSchemaCacheOptions,
} from './mcp/indexeddb-schema-cache.ts';
export { schemaCacheKey, type SchemaCacheKeyInput } from './mcp/schema-cache-key.ts';
export type {
  AttachmentReader,
  Model,
  ModelEvent,
  ModelRequest,
  ModelToolDefinition,
} from './model/model.ts';
export {
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
  DEFAULT_MODEL_WAITING_NOTICE_MS,
  type ModelTimeouts,
} from './model/model-request-clock.ts';
export {
  ANTHROPIC_ATTACHMENT_LIMITS,
  OPENAI_CHAT_ATTACHMENT_LIMITS,
  OPENAI_RESPONSES_ATTACHMENT_LIMITS,
} from './model/provider-attachment-limits.ts';
export { tool, type ToolOptions } from './tools/tool.ts';
export {
  isDeclaredDestructive,
  isDestructive,
  isIdempotent,
  isOpenWorld,
  isReadOnly,
} from './tools/tool-annotations.ts';
export type {
  ApprovalPredicate,
  NestedChunkSource,
  Tool,
  ToolContext,
  ToolProgress,
  ToolTaskStatus,
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
