import type { Page, Request } from '@playwright/test';
import { assistantTexts, expect, expectIdle, openPlayground, test } from './fixtures.ts';

/** A 1×1 transparent PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The Chat Completions requests the page sends to the scripted model. */
function modelRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/chat/completions')) {
      requests.push(request);
    }
  });
  return requests;
}

test('an image attached in the composer reaches the model, shows as a thumbnail, and survives a reload', async ({
  page,
}) => {
  await openPlayground(page, []);
  const sent = modelRequests(page);

  // The file picker ("Attach files" opens it; Playwright sets its files directly).
  await page.getByTestId('composer-file-input').setInputFiles({
    name: 'pixel.png',
    mimeType: 'image/png',
    buffer: PNG,
  });
  const pending = page.getByRole('list', { name: 'Files to send' });
  await expect(pending.getByRole('img', { name: 'pixel.png' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remove pixel.png' })).toBeVisible();

  await page.getByTestId('chat-input').fill('What is in this picture?');
  await page.getByTestId('send-button').click();

  // The scripted model server decoded the image the request carried.
  await expect(assistantTexts(page).last()).toContainText(
    `I received 1 attached image: image/png, ${PNG.length} bytes. You said: What is in this picture?`,
  );
  await expectIdle(page);
  const body = sent.at(-1)?.postDataJSON() as {
    messages: { role: string; content: unknown }[];
  };
  expect(body.messages.findLast((message) => message.role === 'user')?.content).toContainEqual({
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
  });
  await expect(pending).toHaveCount(0);

  const userMessage = page.locator('[data-testid="message"][data-role="user"]');
  await expect(userMessage.getByRole('img', { name: 'pixel.png' })).toBeVisible();

  // In Chromium's IndexedDB the bytes are a Blob in their own object store, not a string in a row.
  const stored = await page.evaluate(async () => {
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('switchboard-playground');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('open failed'));
    });
    const read = <T>(store: string) =>
      new Promise<T[]>((resolve, reject) => {
        const request = database.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => resolve(request.result as T[]);
        request.onerror = () => reject(request.error ?? new Error('read failed'));
      });
    const rows = await read<{ attachmentId: string; bytes: unknown }>('attachments');
    const runs = await read<unknown>('runs');
    database.close();
    return {
      blobs: rows.map((row) => ({
        isBlob: row.bytes instanceof Blob,
        size: row.bytes instanceof Blob ? row.bytes.size : -1,
        attachmentId: row.attachmentId,
      })),
      runsText: JSON.stringify(runs),
    };
  });
  expect(stored.blobs).toEqual([
    { isBlob: true, size: PNG.length, attachmentId: expect.stringMatching(/^[0-9a-f]{64}$/) },
  ]);
  expect(stored.runsText).toContain(stored.blobs[0]?.attachmentId);
  expect(stored.runsText).not.toContain(PNG.toString('base64'));

  // After a reload the stored message shows its thumbnail again, read from IndexedDB.
  await page.reload();
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'idle');
  const reloaded = page.locator('[data-testid="message"][data-role="user"]');
  const thumbnail = reloaded.getByRole('img', { name: 'pixel.png' });
  await expect(thumbnail).toBeVisible();
  await expect(thumbnail).toHaveAttribute('src', /^blob:/);
  expect(await thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(1);
});

test("the file picker offers only the model's types and names them next to the button", async ({
  page,
}) => {
  await openPlayground(page, []);
  // The scripted model speaks Chat Completions: images and PDF, no text/plain.
  await expect(page.getByTestId('composer-file-input')).toHaveAttribute(
    'accept',
    'image/png,image/jpeg,image/gif,image/webp,application/pdf',
  );
  const types = page.getByTestId('composer-accepted-types');
  await expect(types).toHaveText('Accepts PNG, JPEG, GIF, WebP, PDF up to 20 MB.');
  await expect(page.getByTestId('attach-files')).toHaveAccessibleDescription(
    'Accepts PNG, JPEG, GIF, WebP, PDF up to 20 MB.',
  );
});

test('a file type the model does not take is refused before sending, and kept in the composer', async ({
  page,
}) => {
  await openPlayground(page, []);
  const sent = modelRequests(page);
  // The picker does not offer it (see above), but a pasted or dropped file is not filtered.
  await page.getByTestId('composer-file-input').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('hello'),
  });
  await page.getByTestId('chat-input').fill('Read this');
  await page.getByTestId('send-button').click();
  await expect(page.getByTestId('chat-send-error')).toContainText('notes.txt');
  await expect(page.getByRole('button', { name: 'Remove notes.txt' })).toBeVisible();
  await expect(page.getByTestId('chat-input')).toHaveValue('Read this');
  await expect(page.locator('[data-testid="message"]')).toHaveCount(0);
  expect(sent).toHaveLength(0);
});
