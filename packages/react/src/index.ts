export { useAgent, type UseAgentOptions, type UseAgentResult } from './use-agent.ts';
export { useMcpServerStatus, type UseMcpServerStatusResult } from './use-mcp-server-status.ts';
export { useMcpTools, type UseMcpToolsOptions } from './use-mcp-tools.ts';
export {
  useMcpResource,
  useMcpResources,
  type McpResourceListing,
  type UseMcpResourceOptions,
  type UseMcpResourcesOptions,
} from './use-mcp-resources.ts';
export { useMcpCompletion, useMcpPrompts, type UseMcpPromptsOptions } from './use-mcp-prompts.ts';
export type { McpPromptServerLike, McpResourceServerLike } from './mcp-content-server-like.ts';
export { useThreads, type UseThreadsOptions, type UseThreadsResult } from './use-threads.ts';
export type { McpServerLike } from './mcp-server-like.ts';
export { SwitchboardProvider, type SwitchboardProviderProps } from './switchboard-provider.tsx';
export { SwitchboardContext, type SwitchboardContextValue } from './switchboard-context.ts';
export { switchboardQueryKeys } from './query-keys.ts';
export { ElicitationForm, type ElicitationFormProps } from './elicitation-form.tsx';
export {
  ELICITATION_DRAFT_KEY_PREFIX,
  elicitationDraftKey,
  sessionStorageDraftStore,
  type ElicitationDraftStore,
} from './elicitation-drafts.ts';
export {
  normalizeElicitationSchema,
  type ElicitationChoice,
  type NormalizedElicitationSchema,
} from './normalize-elicitation-schema.ts';
export { UrlElicitation, type UrlElicitationProps } from './url-elicitation.tsx';
export { describeUrl, type UrlDescription } from './describe-url.ts';
export { ApprovalDialog, type ApprovalDialogProps } from './approval-dialog.tsx';
export { ErrorNotice, type ErrorNoticeProps } from './error-notice.tsx';
export { AttachmentPreview, type AttachmentPreviewProps } from './attachment-preview.tsx';
export {
  useAttachmentUrl,
  type AttachmentReadFunction,
  type AttachmentUrlState,
} from './use-attachment-url.ts';
export { ToolProgressBar, type ToolProgressBarProps } from './tool-progress-bar.tsx';
export { InterruptView, type InterruptViewProps } from './interrupt-view.tsx';
export { NestedInterruptPath, innermostInterrupt } from './nested-interrupt.tsx';
export { AuthorizationPrompt, type AuthorizationPromptProps } from './authorization-prompt.tsx';
export { TaskResumePrompt, type TaskResumePromptProps } from './task-resume-prompt.tsx';
export type { Interrupt, ResolutionAction, ResolveHandler } from './interrupt-types.ts';
export {
  frameBatchedStore,
  scheduleAnimationFrame,
  scheduleNextTask,
  type ExternalStore,
  type FrameBatchedStore,
  type FrameBatchedStoreOptions,
} from './frame-batched-store.ts';
