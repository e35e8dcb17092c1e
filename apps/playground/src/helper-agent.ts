import {
  Agent,
  IndexedDbHistoryStore,
  type AgentOptions,
  type ApprovalPolicy,
  type McpServer,
  type Model,
  type Tool,
} from '@switchboard/core';

/** What the playground's helper sub-agent is built from: the main agent's own setup. */
export interface HelperAgentSetup {
  model: Model;
  mcpServers: readonly McpServer[];
  approvalPolicy: ApprovalPolicy | undefined;
  leaseMs: number | undefined;
}

/**
 * The helper's runs, in a database of their own: they are threads of the helper, not of the
 * person, so the thread list (the main database) does not show them. Opened at first use.
 */
let helperHistory: IndexedDbHistoryStore | undefined;

/**
 * The playground's demo sub-agent as a tool of the main agent (`Agent.asTool`): the same model,
 * MCP servers and approval policy, so "ask the helper to delete notes.txt" shows a nested run
 * inside the `helper_agent` card and its approval as the main chat's interrupt. Its runs are
 * threads of its own (linked to the main thread's call by `RunRecord.parentCall`).
 */
export function helperAgentTool(setup: HelperAgentSetup): Tool {
  const options: AgentOptions = {
    name: 'helper_agent',
    instructions:
      'You are a helper agent of the Switchboard playground: do the task you are given with ' +
      'the MCP tools and report briefly what you did.',
    model: setup.model,
    mcpServers: [...setup.mcpServers],
    history: (helperHistory ??= new IndexedDbHistoryStore({
      databaseName: 'switchboard-playground-helper',
    })),
    deferredToolsInstructions: false,
  };
  if (setup.approvalPolicy !== undefined) options.approvalPolicy = setup.approvalPolicy;
  if (setup.leaseMs !== undefined) options.leaseMs = setup.leaseMs;
  return new Agent(options).asTool({
    description:
      'A helper agent with the same MCP tools: hand it a whole task in words; it reports back.',
  });
}
