import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import {
  addServer,
  expect,
  expectIdle,
  expectSumAnswer,
  interruptOf,
  openPlayground,
  sendMessage,
  serverCard,
  test,
  toolCard,
  unusedPort,
} from './fixtures.ts';

/**
 * The screenshot tour: every run of the e2e suite takes the pictures of docs/tour.md (desktop
 * 1280×800 and phone 390×844) from the build under test and writes them to docs/tour/, so the
 * README's and the docs' pictures are the product as it is. Each picture is taken only once the
 * state it shows is asserted.
 */
const docs = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs');
const tourDirectory = join(docs, 'tour');

interface Shot {
  file: string;
  caption: string;
  phone?: boolean;
}

const shots: Shot[] = [];

async function snap(page: Page, shot: Shot): Promise<void> {
  mkdirSync(tourDirectory, { recursive: true });
  // The caret and CSS transitions would make pictures differ from run to run.
  await page.screenshot({
    path: join(tourDirectory, shot.file),
    animations: 'disabled',
    caret: 'hide',
  });
  shots.push(shot);
}

test.describe.configure({ mode: 'serial', timeout: 180_000 });

test.afterAll(() => {
  const order = ['desktop', 'phone'] as const;
  const lines = [
    '# The playground in pictures',
    '',
    'Written by `e2e/tests/tour.spec.ts` on every e2e run, from the build under test; do not edit',
    'by hand. Desktop pictures are 1280×800, phone pictures 390×844.',
    '',
  ];
  for (const kind of order) {
    const ofKind = shots.filter((shot) => (shot.phone === true) === (kind === 'phone'));
    if (ofKind.length === 0) continue;
    lines.push(`## ${kind === 'phone' ? 'Phone' : 'Desktop'}`, '');
    for (const shot of ofKind) {
      lines.push(
        shot.phone === true
          ? `<img src="tour/${shot.file}" alt="${shot.caption}" width="300">`
          : `![${shot.caption}](tour/${shot.file})`,
        '',
        shot.caption,
        '',
      );
    }
  }
  writeFileSync(join(docs, 'tour.md'), lines.join('\n'));
});

test.describe('desktop', () => {
  // The last picture shows a server that is down: the browser logs the refused connection.
  test.use({ expectedConsoleErrors: /^Failed to load resource: net::ERR_CONNECTION_REFUSED$/ });

  test('desktop tour', async ({ page }) => {
    await openPlayground(page);
    await snap(page, {
      file: 'desktop-start.png',
      caption:
        'A new conversation: threads, suggestions of what the scripted model understands, and three MCP servers.',
    });

    await sendMessage(page, 'what is 2 plus 3?');
    await expectSumAnswer(page);
    await expectIdle(page);
    await sendMessage(page, 'delete notes.txt');
    await expect(interruptOf(page, 'approval')).toBeVisible();
    await snap(page, {
      file: 'desktop-approval.png',
      caption: 'A tool call with its result, and a destructive call waiting for approval.',
    });
    await interruptOf(page, 'approval').getByRole('button', { name: 'Reject' }).click();
    await expect(toolCard(page, 'demo_delete_file')).toHaveAttribute('data-outcome', 'declined');
    await expectIdle(page);

    await sendMessage(page, 'book a table');
    const form = interruptOf(page, 'form');
    await expect(form).toBeVisible();
    await form.locator('input[id$="_name"]').fill('Ada');
    await snap(page, {
      file: 'desktop-form.png',
      caption:
        'A server asks for a booking form (MCP elicitation); what is typed survives a reload.',
    });
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expectIdle(page);

    await page.getByTestId('tab-runner').click();
    await expect(page.getByTestId('tool-runner')).toBeVisible();
    await snap(page, {
      file: 'desktop-tool-runner.png',
      caption:
        'The tool runner: call any tool of any server directly, with a form made from its input schema.',
    });

    await page.getByTestId('tab-servers').click();
    await addServer(page, {
      name: 'offline',
      url: `http://127.0.0.1:${await unusedPort()}/mcp`,
      protocol: '2025',
    });
    const card = serverCard(page, 'offline');
    await expect(card.getByTestId('server-error')).toBeVisible();
    await card.getByTestId('server-error').locator('summary').click();
    await card.scrollIntoViewIfNeeded();
    await snap(page, {
      file: 'desktop-server-error.png',
      caption:
        'A server that cannot be reached: one sentence saying what to do, the facts under Details.',
    });
  });
});

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('phone tour', async ({ page }) => {
    await openPlayground(page);
    await sendMessage(page, 'delete notes.txt');
    await expect(interruptOf(page, 'approval')).toBeVisible();
    await snap(page, {
      file: 'phone-approval.png',
      caption: 'On a phone: one area at a time, here the chat waiting for an approval.',
      phone: true,
    });
    await interruptOf(page, 'approval').getByRole('button', { name: 'Approve' }).click();
    await expectIdle(page);
    await page.getByTestId('nav-tools').click();
    await expect(page.getByTestId('servers')).toBeVisible();
    await snap(page, {
      file: 'phone-servers.png',
      caption: 'On a phone: the servers, their status and tools.',
      phone: true,
    });
  });
});
