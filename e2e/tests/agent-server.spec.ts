import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { startAgentServer } from '../../examples/agent-server/agent-server.mjs';
import {
  assistantTexts,
  expect,
  expectIdle,
  interruptOf,
  openPlayground,
  playgroundUrls,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

/**
 * Settings → "Agent runs: on a server": the playground chats through `examples/agent-server`
 * (`remoteAgent` → `agentRequestHandler`), started here on 127.0.0.1 with its own demo MCP
 * server, the playground's scripted model and a throwaway threads directory.
 */
let demo: DemoServer;
let agentServer: { url: string; close(): Promise<void> };
let threads: string;

test.beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 2 });
  threads = await mkdtemp(join(tmpdir(), 'switchboard-agent-server-'));
  const page = new URL(playgroundUrls().url).origin;
  agentServer = await startAgentServer({
    port: 0,
    modelBaseUrl: playgroundUrls().modelBaseUrl,
    mcpUrl: demo.modernUrl,
    directory: threads,
    corsOrigins: [page],
  });
});

test.afterAll(async () => {
  await agentServer.close();
  await demo.close();
  await rm(threads, { recursive: true, force: true });
});

test('chats through an agent server, approval included; the setting survives a reload', async ({
  page,
}) => {
  const toolCalls = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/call').length;
  await openPlayground(page, []);
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('settings-agent-runs-server').check();
  await page.getByTestId('settings-agent-server-url').fill(agentServer.url);
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('model-label')).toContainText("The agent server's");

  await sendMessage(page, 'delete notes.txt');
  const dialog = interruptOf(page, 'approval');
  await expect(dialog).toContainText('demo_delete_file');
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
  expect(toolCalls()).toBe(0);

  await dialog.getByRole('button', { name: 'Approve' }).click();
  const card = toolCard(page, 'demo_delete_file');
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('tool-call-result')).toHaveText(
    'Deleted notes.txt (demo: nothing was really deleted).',
  );
  await expectIdle(page);
  expect(toolCalls()).toBe(1);

  // The thread is the server's: after a reload the page reads it from there.
  await page.reload();
  await expect(page.getByTestId('model-label')).toContainText("The agent server's");
  await expect(assistantTexts(page).last()).toHaveText(
    'The tool returned: Deleted notes.txt (demo: nothing was really deleted).',
  );
  await expect(toolCard(page, 'demo_delete_file')).toHaveAttribute('data-state', 'done');
  expect(toolCalls()).toBe(1);
});
