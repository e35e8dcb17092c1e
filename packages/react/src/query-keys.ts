import type { AgentThreads } from '@switchboard/core';

const instanceIds = new WeakMap<object, number>();
let nextInstanceId = 0;

/** A stable number per object, so two stores never share a query key (class instances hash alike). */
function instanceId(instance: object): number {
  let id = instanceIds.get(instance);
  if (id === undefined) {
    nextInstanceId += 1;
    id = nextInstanceId;
    instanceIds.set(instance, id);
  }
  return id;
}

/**
 * The TanStack Query keys of the Switchboard hooks, to invalidate or prefetch them yourself:
 * `queryClient.invalidateQueries({ queryKey: switchboardQueryKeys.threads(history) })`. Keys are
 * per instance (a history store, an MCP server), all under `['switchboard']`.
 */
export const switchboardQueryKeys = {
  /** Every Switchboard query. */
  all: ['switchboard'] as const,
  /** The thread list of one history store ({@link useThreads}). */
  threads: (history: AgentThreads) => ['switchboard', 'threads', instanceId(history)] as const,
  /** The tool list of one MCP server ({@link useMcpTools}). */
  mcpTools: (server: { name?: string }) =>
    ['switchboard', 'mcp-tools', server.name ?? '', instanceId(server)] as const,
  /** The resources and resource templates of one MCP server ({@link useMcpResources}). */
  mcpResources: (server: { name?: string }) =>
    ['switchboard', 'mcp-resources', server.name ?? '', instanceId(server)] as const,
  /** One resource's bodies ({@link useMcpResource}); under {@link mcpResources}. */
  mcpResource: (server: { name?: string }, uri: string) =>
    ['switchboard', 'mcp-resources', server.name ?? '', instanceId(server), uri] as const,
  /** The prompts of one MCP server ({@link useMcpPrompts}). */
  mcpPrompts: (server: { name?: string }) =>
    ['switchboard', 'mcp-prompts', server.name ?? '', instanceId(server)] as const,
  /** Suggestions for one argument value ({@link useMcpCompletion}). */
  mcpCompletion: (
    server: { name?: string },
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    context: Record<string, string> | undefined,
  ) =>
    [
      'switchboard',
      'mcp-completion',
      server.name ?? '',
      instanceId(server),
      ref.type,
      ref.name ?? ref.uri ?? '',
      argument.name,
      argument.value,
      context ?? {},
    ] as const,
};
