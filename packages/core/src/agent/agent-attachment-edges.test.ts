import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { ONE_PIXEL_PNG } from '../history/attachment-store-contract.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { startScriptedModelServer, scriptFromReplies } from '@switchboard/fixtures';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { Agent } from './agent.ts';

/**
 * Attachments at their edges, through the OpenAI Chat Completions adapter to the scripted
 * model server over HTTP: sizes at and around the limits, files whose bytes do not match
 * their declared type, the same file twice. A file refused here never reaches the thread: a
 * stored part the provider cannot read would be sent again with every later turn.
 */
const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function agentOver(maxAttachmentBytes?: number) {
  const server = await startScriptedModelServer({
    script: scriptFromReplies([{ text: 'Seen.' }, { text: 'Seen again.' }]),
  });
  servers.push(server);
  const model = openaiChatModel({
    model: 'scripted',
    apiKey: 'test-key',
    maxRetries: 0,
    baseURL: `${server.url}/v1`,
  });
  const history = new MemoryHistoryStore();
  const agent = new Agent({
    name: 'test',
    model,
    history,
    ...(maxAttachmentBytes === undefined ? {} : { maxAttachmentBytes }),
  });
  return { agent, history, server };
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

const png = (bytes: Uint8Array<ArrayBuffer>, name = 'pixel.png') =>
  new File([bytes], name, { type: 'image/png' });

describe('attachments at their edges', () => {
  it('takes a file of exactly maxAttachmentBytes and refuses one byte more', async () => {
    const size = ONE_PIXEL_PNG.byteLength;
    const exact = await agentOver(size);
    const result = await exact.agent
      .execute({ threadId: 't', messages: { content: 'Look', attachments: [png(ONE_PIXEL_PNG)] } })
      .result();
    expect(result.status).toBe('completed');

    const under = await agentOver(size - 1);
    const error = refusal(() =>
      under.agent.execute({
        threadId: 't',
        messages: { content: 'Look', attachments: [png(ONE_PIXEL_PNG)] },
      }),
    );
    expect(error.details).toMatchObject({ reason: 'attachment_too_large' });
    expect(under.server.requests).toHaveLength(0);
  });

  it('refuses a 0-byte file before anything is stored or sent', async () => {
    const { agent, history, server } = await agentOver();
    const error = refusal(() =>
      agent.execute({
        threadId: 't',
        messages: { content: 'Look', attachments: [png(new Uint8Array(0), 'empty.png')] },
      }),
    );
    expect(error.message).toContain('"empty.png"');
    expect(error.details).toEqual({
      reason: 'attachment_empty',
      attachment: { name: 'empty.png', mimeType: 'image/png', size: 0 },
    });
    expect(server.requests).toHaveLength(0);
    expect(await history.listThreads()).toEqual([]);
  });

  it('fails a run whose image is not one (its bytes lie about the type), with nothing stored or sent', async () => {
    const { agent, history, server } = await agentOver();
    const text = new TextEncoder().encode('just some text, named like a picture');
    const result = await agent
      .execute({ threadId: 't', messages: { content: 'Look', attachments: [png(text, 'x.png')] } })
      .result();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('invalid_input');
    expect(result.error?.details).toMatchObject({
      reason: 'attachment_type_mismatch',
      attachment: { name: 'x.png', mimeType: 'image/png', size: text.byteLength },
    });
    expect(server.requests).toHaveLength(0);
    expect(await history.loadRuns('t')).toEqual([]);

    // The thread is usable: the same message with the real picture goes through.
    const next = await agent
      .execute({ threadId: 't', messages: { content: 'Look', attachments: [png(ONE_PIXEL_PNG)] } })
      .result();
    expect(next.status).toBe('completed');
  });

  it('stores the same file attached twice once, and sends it with both parts', async () => {
    const { agent, history, server } = await agentOver();
    const result = await agent
      .execute({
        threadId: 't',
        messages: {
          content: 'Twice',
          attachments: [png(ONE_PIXEL_PNG, 'a.png'), png(ONE_PIXEL_PNG, 'b.png')],
        },
      })
      .result();
    expect(result.status).toBe('completed');
    const [message] = (await history.loadRuns('t'))[0]?.items ?? [];
    const parts = message?.type === 'message' ? (message.parts ?? []) : [];
    expect(parts.map((part) => (part.type === 'attachment' ? part.name : ''))).toEqual([
      'a.png',
      'b.png',
    ]);
    const ids = new Set(parts.map((part) => (part.type === 'attachment' ? part.attachmentId : '')));
    expect(ids.size).toBe(1);
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body.match(/data:image\/png;base64,/g)).toHaveLength(2);
  });
});
