import {
  destructiveToolsNeedApproval,
  type ApprovalPolicy,
  type McpToolDescriptor,
} from '@switchboard/core';

/**
 * Whether a view's call of `tool` waits for the user, decided exactly as the agent decides it for
 * a model's call: the tool's own `needsApproval` (from `approvalRequiredTools`), then the
 * agent's `approvalPolicy`. Fails closed: a policy that throws asks the user.
 */
export async function appCallNeedsApproval(
  tool: McpToolDescriptor,
  args: Record<string, unknown>,
  policy: ApprovalPolicy = destructiveToolsNeedApproval,
  runContext?: unknown,
): Promise<boolean> {
  try {
    const own = tool.needsApproval;
    if (own === true) return true;
    if (typeof own === 'function' && (await own(args, tool.annotations, runContext))) return true;
    return await policy(args, tool.annotations, runContext, tool);
  } catch {
    return true;
  }
}
