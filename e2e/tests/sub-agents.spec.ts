import {
  assistantTexts,
  countToolCalls,
  expect,
  expectIdle,
  interruptOf,
  openPlayground,
  sendMessage,
  test,
  toolCard,
} from './fixtures.ts';

test.describe('sub-agents (Agent.asTool)', () => {
  test('a nested approval inside the helper sub-agent, approved after a reload, runs the tool once', async ({
    page,
  }) => {
    await openPlayground(page, ['demo']);
    const calls = countToolCalls(page, 'delete_file');

    await sendMessage(page, 'ask the helper to delete notes.txt');
    const helper = toolCard(page, 'helper_agent');
    await expect(helper).toHaveAttribute('data-state', 'waiting');
    // The sub-agent's own call shows inside the helper's card, waiting too.
    const nested = helper.getByTestId('nested-run');
    await expect(nested.locator('[data-tool-name="demo_delete_file"]')).toHaveAttribute(
      'data-state',
      'waiting',
    );
    const dialog = interruptOf(page, 'approval');
    await expect(dialog).toContainText('Asked inside helper_agent');
    await expect(dialog).toContainText('Allow demo_delete_file from demo?');
    await expect(dialog).toContainText('"path": "notes.txt"');
    await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'paused');
    expect(calls()).toBe(0);

    // The request listener stays on the page across the reload: `calls` counts both pages.
    await page.reload();
    const again = interruptOf(page, 'approval');
    await expect(again).toContainText('Asked inside helper_agent');
    await expect(again).toContainText('Allow demo_delete_file from demo?');
    await expect(toolCard(page, 'helper_agent')).toHaveAttribute('data-state', 'waiting');
    await again.getByRole('button', { name: 'Approve' }).click();

    const card = toolCard(page, 'helper_agent');
    await expect(card).toHaveAttribute('data-state', 'done');
    const deleted = 'Deleted notes.txt (demo: nothing was really deleted).';
    // The resumed sub-agent's answer streams inside the card, then is the call's result.
    await expect(card.getByTestId('nested-text').last()).toHaveText(
      `The tool returned: ${deleted}`,
    );
    await expect(card.getByTestId('tool-call-result')).toHaveText(`The tool returned: ${deleted}`);
    await expect(assistantTexts(page).last()).toHaveText(
      `The tool returned: The tool returned: ${deleted}`,
    );
    await expectIdle(page);
    await expect(interruptOf(page, 'approval')).toHaveCount(0);
    expect(calls()).toBe(1);
  });
});
