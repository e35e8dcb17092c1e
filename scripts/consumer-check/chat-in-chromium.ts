import { chromiumLaunchOptions } from '@switchboard/fixtures/chromium';
import { chromium } from 'playwright-core';

/**
 * Drives the built react-chat example at `url` in headless Chromium: sends "delete notes.txt",
 * approves the call in the `<InterruptView>` dialog, and waits for the answer that quotes the
 * tool's result. Fails on any console error or page error. Resolves with the messages' text.
 */
export async function chatInChromium(url: string): Promise<string> {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const problems: string[] = [];
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console error: ${message.text()} (${message.location().url})`);
      }
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

    await page.goto(url);
    await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText('The tool returned').waitFor();
    const text = await messages.innerText();
    if (!text.includes('delete_file')) throw new Error(`No delete_file call in:\n${text}`);
    if (problems.length > 0) throw new Error(problems.join('\n'));
    return text;
  } finally {
    await browser.close();
  }
}
