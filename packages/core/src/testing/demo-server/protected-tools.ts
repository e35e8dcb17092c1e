import { z } from 'zod';
import type { DemoServerState } from './demo-server-state.ts';
import { defineTool, textResult } from './demo-tools.ts';
import type { DemoTool } from './demo-tools.ts';

/** Scope every request to `/protected/mcp` needs. */
export const TOOLS_SCOPE = 'mcp:tools';
/** Extra scope the admin tools of `/protected/mcp` need (MCP step-up authorization). */
export const ADMIN_SCOPE = 'mcp:admin';

/** The one admin tool: only on `/protected/mcp`, and callable only with {@link ADMIN_SCOPE}. */
export const RESET_DEMO_DATA_TOOL = 'reset_demo_data';

function createResetDemoDataTool(): DemoTool {
  return defineTool({
    name: RESET_DEMO_DATA_TOOL,
    title: 'Reset the demo data',
    description:
      'Resets the (imaginary) demo data. Destructive; needs the mcp:admin scope, so calling it with a mcp:tools token asks for step-up authorization.',
    input: z.object({}),
    annotations: { destructiveHint: true, readOnlyHint: false, idempotentHint: true },
    async run() {
      return textResult('Demo data reset (demo: nothing was really reset).');
    },
  });
}

/**
 * The protected endpoint's view of the shared state: the same live catalog (list changes and
 * `dynamic_tool` included) with `reset_demo_data` appended. The other endpoints keep their 168
 * tools; only this one has an admin tool.
 */
export function withAdminTools(base: DemoServerState): DemoServerState {
  const resetTool = createResetDemoDataTool();
  return {
    get url() {
      return base.url;
    },
    set url(value) {
      base.url = value;
    },
    get pageSize() {
      return base.pageSize;
    },
    get dynamicToolEnabled() {
      return base.dynamicToolEnabled;
    },
    set dynamicToolEnabled(value) {
      base.dynamicToolEnabled = value;
    },
    requestStateCodec: base.requestStateCodec,
    authorizations: base.authorizations,
    listedTools() {
      return [...base.listedTools(), resetTool];
    },
    findTool(name) {
      return name === RESET_DEMO_DATA_TOOL ? resetTool : base.findTool(name);
    },
  };
}

/** The names of the tools called in a parsed JSON-RPC body (one message or a batch). */
export function calledToolNames(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method !== 'tools/call' || typeof params !== 'object' || params === null) continue;
    const name = (params as { name?: unknown }).name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}
