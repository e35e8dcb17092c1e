import { afterEach, describe, expect, it } from 'vitest';
import { anthropicModel } from '../anthropic/anthropic-model.ts';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { ONE_PIXEL_PNG } from '../history/attachment-store-contract.ts';
import type { HistoryStore } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Model } from '../model/model.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { openaiResponsesModel } from '../openai/openai-responses-model.ts';
import { mockModel, textTurn } from '../testing/mock-model.ts';
import type { MessageAttachmentPart } from '../vocabulary/items.ts';
import { startScriptedModelServer, scriptFromReplies } from '@switchboard/fixtures';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { Agent } from './agent.ts';

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const PNG_BASE64 = btoa(String.fromCharCode(...ONE_PIXEL_PNG));
const PDF_BYTES = new TextEncoder().encode('%PDF-1.4\n%%EOF\n');
const PDF_BASE64 = btoa(String.fromCharCode(...PDF_BYTES));

type Provider = 'openai-chat' | 'openai-responses' | 'anthropic';

async function serve(provider: Provider): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({
    script: scriptFromReplies([{ text: 'A pixel.' }, { text: 'Still a pixel.' }]),
  });
  servers.push(server);
  const common = { model: 'scripted', apiKey: 'test-key', maxRetries: 0 };
  const model =
    provider === 'openai-chat'
      ? openaiChatModel({ ...common, baseURL: `${server.url}/v1` })
      : provider === 'openai-responses'
        ? openaiResponsesModel({ ...common, baseURL: `${server.url}/v1` })
        : anthropicModel({ ...common, baseURL: server.url });
  return { server, model };
}

/** The user content of the request body's last user message, in the wire format's own shape. */
function userContent(server: ScriptedModelServer, index: number): unknown[] {
  const body = server.requests[index]?.body as Record<string, unknown>;
  const list = (body.messages ?? body.input) as { role?: string; content: unknown }[];
  const users = list.filter((entry) => entry.role === 'user');
  return users.at(-1)?.content as unknown[];
}

const imageOnTheWire: Record<Provider, unknown> = {
  'openai-chat': {
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${PNG_BASE64}` },
  },
  'openai-responses': {
    type: 'input_image',
    detail: 'auto',
    image_url: `data:image/png;base64,${PNG_BASE64}`,
  },
  anthropic: {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
  },
};

const pdfOnTheWire: Record<Provider, unknown> = {
  'openai-chat': {
    type: 'file',
    file: { filename: 'notes.pdf', file_data: `data:application/pdf;base64,${PDF_BASE64}` },
  },
  'openai-responses': {
    type: 'input_file',
    filename: 'notes.pdf',
    file_data: `data:application/pdf;base64,${PDF_BASE64}`,
  },
  anthropic: {
    type: 'document',
    title: 'notes.pdf',
    source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 },
  },
};

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function refusal(run: () => unknown): SwitchboardError {
  try {
    run();
  } catch (error) {
    if (isSwitchboardError(error, 'invalid_input')) return error;
    throw error;
  }
  throw new Error('expected invalid_input');
}

describe.each<Provider>(['openai-chat', 'openai-responses', 'anthropic'])(
  'attachments through %s over HTTP',
  (provider) => {
    it('sends an attached image in the wire format, stores a reference (not the bytes) in the thread, and sends it again next turn', async () => {
      const { server, model } = await serve(provider);
      const history = new MemoryHistoryStore();
      const agent = new Agent({ name: 'test', model, history });
      const file = new File([ONE_PIXEL_PNG], 'pixel.png', { type: 'image/png' });

      const first = await agent
        .execute({ threadId: 't', messages: { content: 'What is this?', attachments: [file] } })
        .result();
      const second = await agent.execute({ threadId: 't', messages: 'And now?' }).result();

      expect([first.status, second.status]).toEqual(['completed', 'completed']);
      expect(userContent(server, 0)).toContainEqual(imageOnTheWire[provider]);
      // The second request carries the whole thread: the image again, read from the store.
      const body = JSON.stringify(server.requests[1]?.body);
      expect(body).toContain(PNG_BASE64);
      const part: MessageAttachmentPart = {
        type: 'attachment',
        attachmentId: await sha256(ONE_PIXEL_PNG),
        name: 'pixel.png',
        mimeType: 'image/png',
        size: ONE_PIXEL_PNG.byteLength,
      };
      const runs = await history.loadRuns('t');
      expect(runs[0]?.items[0]).toEqual({
        type: 'message',
        role: 'user',
        content: 'What is this?',
        parts: [part],
      });
      expect(JSON.stringify(runs)).not.toContain(PNG_BASE64);
      const stored = await history.attachments.get('t', part.attachmentId);
      expect(new Uint8Array(await (stored as Blob).arrayBuffer())).toEqual(ONE_PIXEL_PNG);
    });

    it('sends an attached PDF as the provider’s document part', async () => {
      const { server, model } = await serve(provider);
      const agent = new Agent({ name: 'test', model });
      const result = await agent
        .execute({
          messages: {
            content: 'Summarise.',
            attachments: [{ data: PDF_BYTES, name: 'notes.pdf', mimeType: 'application/pdf' }],
          },
        })
        .result();
      expect(result.status).toBe('completed');
      expect(userContent(server, 0)).toContainEqual(pdfOnTheWire[provider]);
    });
  },
);

describe('attachments refused before anything is stored or sent', () => {
  const png = () => new File([ONE_PIXEL_PNG], 'pixel.png', { type: 'image/png' });

  async function untouched(history: HistoryStore, threadId: string): Promise<void> {
    expect(await history.loadRuns(threadId)).toEqual([]);
    expect(await history.listThreads()).toEqual([]);
  }

  it('refuses a file over maxAttachmentBytes with its size and the limit', async () => {
    const { server, model } = await serve('openai-chat');
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'test', model, history, maxAttachmentBytes: 10 });
    const error = refusal(() =>
      agent.execute({ threadId: 't', messages: { content: 'Look', attachments: [png()] } }),
    );
    expect(error.message).toContain('"pixel.png"');
    expect(error.details).toEqual({
      reason: 'attachment_too_large',
      attachment: {
        name: 'pixel.png',
        mimeType: 'image/png',
        size: ONE_PIXEL_PNG.byteLength,
        maxBytes: 10,
      },
    });
    expect(server.requests).toHaveLength(0);
    await untouched(history, 't');
  });

  it('refuses a type the provider does not accept (text on Chat Completions), naming the model', async () => {
    const { server, model } = await serve('openai-chat');
    const agent = new Agent({ name: 'test', model });
    const text = new File(['hello'], 'notes.txt', { type: 'text/plain;charset=utf-8' });
    const error = refusal(() =>
      agent.execute({ messages: { content: 'Read it', attachments: [text] } }),
    );
    expect(error.details).toMatchObject({
      reason: 'attachment_type_not_accepted',
      attachment: { mimeType: 'text/plain', model: 'openai-chat/scripted' },
    });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses what a fallback model does not accept, and a file of unknown type', async () => {
    const { model } = await serve('openai-responses');
    const fallback = mockModel([textTurn('x')]);
    const agent = new Agent({ name: 'test', model, fallbackModels: [fallback] });
    expect(
      refusal(() => agent.execute({ messages: { content: '', attachments: [png()] } })).details,
    ).toMatchObject({ reason: 'attachment_type_not_accepted', attachment: { model: 'mock/mock' } });
    const solo = new Agent({ name: 'test', model });
    expect(
      refusal(() =>
        solo.execute({ messages: { content: '', attachments: [new Blob([Uint8Array.of(1)])] } }),
      ).details,
    ).toMatchObject({ reason: 'attachment_type_unknown', attachment: { name: 'attachment' } });
  });

  it('refuses an image over the provider’s own limit (Anthropic: 3.75 MB of bytes)', async () => {
    const { model } = await serve('anthropic');
    const agent = new Agent({ name: 'test', model });
    const big = new File([new Uint8Array(4 * 1024 * 1024)], 'big.png', { type: 'image/png' });
    expect(
      refusal(() => agent.execute({ messages: { content: '', attachments: [big] } })).details,
    ).toMatchObject({
      reason: 'attachment_too_large',
      attachment: { model: 'anthropic/scripted', maxBytes: 3_932_160 },
    });
  });

  it('refuses attachments when the history store keeps none', async () => {
    const { model } = await serve('openai-chat');
    const memory = new MemoryHistoryStore();
    const history: HistoryStore = {
      loadItems: (...args) => memory.loadItems(...args),
      loadRuns: (...args) => memory.loadRuns(...args),
      loadRunChanges: (...args) => memory.loadRunChanges(...args),
      saveRun: (...args) => memory.saveRun(...args),
      compareAndSetRun: (...args) => memory.compareAndSetRun(...args),
      listThreads: (...args) => memory.listThreads(...args),
      renameThread: (...args) => memory.renameThread(...args),
      selectBranch: (...args) => memory.selectBranch(...args),
      loadBranchSelection: (...args) => memory.loadBranchSelection(...args),
      deleteThread: (...args) => memory.deleteThread(...args),
    };
    const agent = new Agent({ name: 'test', model, history });
    expect(
      refusal(() => agent.execute({ messages: { content: '', attachments: [png()] } })).details,
    ).toMatchObject({ reason: 'attachments_not_kept' });
  });

  it('deleting the thread deletes its attachments', async () => {
    const { model } = await serve('openai-chat');
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'test', model, history });
    await agent
      .execute({ threadId: 't', messages: { content: '', attachments: [png()] } })
      .result();
    const id = await sha256(ONE_PIXEL_PNG);
    expect(await history.attachments.get('t', id)).toBeDefined();
    await history.deleteThread('t');
    expect(await history.attachments.get('t', id)).toBeUndefined();
  });
});
