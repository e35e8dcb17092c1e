import { describe, expect, it } from 'vitest';
import type { McpToolDescriptor } from '@switchboard/core';
import { appCallNeedsApproval } from './app-tool-approval.ts';

function tool(overrides: Partial<McpToolDescriptor>): McpToolDescriptor {
  return {
    name: 'demo',
    originalName: 'demo',
    server: 'apps',
    description: '',
    inputSchema: { type: 'object' },
    execute: async () => '',
    ...overrides,
  };
}

describe('appCallNeedsApproval', () => {
  it('holds destructive and unannotated tools by default, like destructiveToolsNeedApproval', async () => {
    expect(
      await appCallNeedsApproval(
        tool({ annotations: { destructiveHint: true, readOnlyHint: false } }),
        {},
      ),
    ).toBe(true);
    expect(await appCallNeedsApproval(tool({}), {})).toBe(true);
    expect(await appCallNeedsApproval(tool({ annotations: { readOnlyHint: true } }), {})).toBe(
      false,
    );
  });

  it('honours the tool’s own needsApproval and the agent’s policy', async () => {
    const readOnly = { annotations: { readOnlyHint: true } };
    expect(await appCallNeedsApproval(tool({ ...readOnly, needsApproval: true }), {})).toBe(true);
    expect(
      await appCallNeedsApproval(
        tool({ ...readOnly, needsApproval: (args) => (args as { n: number }).n > 1 }),
        { n: 2 },
      ),
    ).toBe(true);
    expect(await appCallNeedsApproval(tool(readOnly), {}, () => true)).toBe(true);
    expect(await appCallNeedsApproval(tool({}), {}, () => false)).toBe(false);
  });

  it('fails closed when the policy throws', async () => {
    const throwing = (): boolean => {
      throw new Error('policy broke');
    };
    expect(
      await appCallNeedsApproval(tool({ annotations: { readOnlyHint: true } }), {}, throwing),
    ).toBe(true);
  });
});
