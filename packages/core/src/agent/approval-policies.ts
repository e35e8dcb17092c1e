import { isDestructive } from '../tools/tool-annotations.ts';
import type { ApprovalPolicy } from './agent-options.ts';

/**
 * An {@link ApprovalPolicy} that holds every call of a tool that may be destructive, using MCP's
 * conservative defaults (`isDestructive`): a tool declared `readOnlyHint: true` or
 * `destructiveHint: false` runs at once; a tool declared destructive, or with no annotations at
 * all, waits for a human's approval. Annotations are hints (docs/architecture.md, "Security
 * rules"): this policy can only
 * add approvals, never remove one a tool asks for with `needsApproval`.
 *
 * ```ts
 * new Agent({ name, model, mcpServers, approvalPolicy: destructiveToolsNeedApproval });
 * ```
 */
export const destructiveToolsNeedApproval: ApprovalPolicy = (_args, annotations) =>
  isDestructive(annotations);
