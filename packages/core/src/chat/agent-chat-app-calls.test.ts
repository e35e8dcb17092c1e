import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { destructiveToolsNeedApproval } from '../agent/approval-policies.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { mockModel, textTurn } from '../testing/mock-model.ts';
import type { AppViewRef } from '../vocabulary/tool-ui.ts';
import { AgentChat } from './agent-chat.ts';
import type { ChatToolCallPart } from './chat-message.ts';

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});
const opened: McpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

const view: AppViewRef = { server: 'apps', toolName: 'order_form', callId: 'call_form' };

function appsAgent(history: MemoryHistoryStore): Agent {
  const server = mcpServer({ url: demo.appsUrl, name: 'apps', apps: true });
  opened.push(server);
  return new Agent({
    name: 'apps',
    model: mockModel([textTurn('Here is the form.')]),
    mcpServers: [server],
    approvalPolicy: destructiveToolsNeedApproval,
    history,
  });
}

function callParts(chat: AgentChat): ChatToolCallPart[] {
  return chat
    .getSnapshot()
    .messages.flatMap((message) => message.parts)
    .filter((part): part is ChatToolCallPart => part.type === 'tool-call');
}

describe('AgentChat and an MCP Apps view', () => {
  it('shows a view’s call as an approval in the thread and gives the view its output', async () => {
    const history = new MemoryHistoryStore();
    const chat = new AgentChat(appsAgent(history), { threadId: 'c1' });
    await chat.send('open the order form');
    const output = chat.callToolFromApp({
      view,
      name: 'place_order',
      arguments: { item: 'tea', quantity: 2 },
    });
    await expect.poll(() => chat.getSnapshot().interrupts.length).toBe(1);
    const [interrupt] = chat.getSnapshot().interrupts;
    expect(interrupt).toMatchObject({
      mode: 'approval',
      toolName: 'place_order',
      requestedBy: view,
    });
    expect(callParts(chat)).toEqual([
      expect.objectContaining({ toolName: 'place_order', state: 'waiting', requestedBy: view }),
    ]);

    await chat.approve(interrupt?.callId ?? '');
    expect((await output).text).toMatch(/^Ordered 2 × tea/);
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', interrupts: [] });

    // A reopened thread shows the same call, marked, with its one output.
    const reopened = new AgentChat(appsAgent(history), { threadId: 'c1' });
    await reopened.load();
    expect(callParts(reopened)).toEqual([
      expect.objectContaining({ state: 'done', requestedBy: view }),
    ]);
    // Live and stored agree: the call sits in the assistant message before it.
    const shape = (shown: AgentChat): string[][] =>
      shown
        .getSnapshot()
        .messages.map((message) => [message.role, ...message.parts.map((part) => part.type)]);
    expect(shape(reopened)).toEqual(shape(chat));
    expect(callParts(reopened)[0]?.output).toEqual(callParts(chat)[0]?.output);
  });

  it('refuses a view’s call while the thread waits for an answer, and hides model context', async () => {
    const history = new MemoryHistoryStore();
    const chat = new AgentChat(appsAgent(history), { threadId: 'c2' });
    const first = chat.callToolFromApp({
      view,
      name: 'place_order',
      arguments: { item: 'tea', quantity: 1 },
    });
    await expect.poll(() => chat.getSnapshot().interrupts.length).toBe(1);
    expect(await chat.callToolFromApp({ view, name: 'chart_data' })).toMatchObject({
      isError: true,
      error: { code: 'run_in_progress' },
    });
    await chat.reject(chat.getSnapshot().interrupts[0]?.callId ?? '');
    expect(await first).toMatchObject({ error: { code: 'rejected' } });

    expect(await chat.updateModelContextFromApp({ view, text: 'Cart: tea' })).toBe('stored');
    const reopened = new AgentChat(appsAgent(history), { threadId: 'c2' });
    await reopened.load();
    expect(JSON.stringify(reopened.getSnapshot().messages)).not.toContain('Cart: tea');
  });
});
