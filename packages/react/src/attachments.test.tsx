import { Agent, MemoryHistoryStore, type ChatAttachmentPart } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { act, cleanup, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttachmentPreview } from './attachment-preview.tsx';
import { useAgent } from './use-agent.ts';

const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  ),
  (char) => char.charCodeAt(0),
);
const PNG_BASE64 = btoa(String.fromCharCode(...PNG));

describe('attachments in useAgent and AttachmentPreview', () => {
  let server: ScriptedModelServer;
  const created: Blob[] = [];
  const revoked: string[] = [];

  beforeEach(async () => {
    // jsdom's Blob has no arrayBuffer() (which the digest of the bytes needs, as every browser
    // has it): use Node's, the same Web API Blob.
    const { Blob: NodeBlob } = await import('node:buffer');
    vi.stubGlobal('Blob', NodeBlob);
    server = await startScriptedModelServer({
      script: scriptFromReplies([{ text: 'A single pixel.' }]),
    });
    // jsdom has no object URLs: record what the preview creates and revokes.
    URL.createObjectURL = vi.fn((blob: Blob) => {
      created.push(blob);
      return `blob:test/${created.length}`;
    });
    URL.revokeObjectURL = vi.fn((url: string) => {
      revoked.push(url);
    });
  });
  afterEach(async () => {
    cleanup();
    vi.unstubAllGlobals();
    created.length = 0;
    revoked.length = 0;
    await server.close();
  });

  it('sends an image through useAgent().send, shows it on the message, and reads it back from the store', async () => {
    const history = new MemoryHistoryStore();
    const agent = new Agent({
      name: 'attach',
      model: openaiChatModel({ model: 'scripted', apiKey: 'x', baseURL: `${server.url}/v1` }),
      history,
    });
    const { result } = renderHook(() => useAgent(agent, { threadId: 'attach-thread' }));
    const image = { data: new Blob([PNG]), name: 'pixel.png', mimeType: 'image/png' };
    let outcome: string | undefined;
    await act(async () => {
      outcome = (await result.current.send('What is this?', { attachments: [image] })).status;
    });
    expect(outcome).toBe('completed');
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain(`data:image/png;base64,${PNG_BASE64}`);

    const user = result.current.messages.find((message) => message.role === 'user');
    const part = user?.parts.find((entry) => entry.type === 'attachment') as ChatAttachmentPart;
    expect(part).toMatchObject({
      type: 'attachment',
      name: 'pixel.png',
      mimeType: 'image/png',
      size: PNG.length,
    });

    const stored = await history.loadItems('attach-thread');
    const attachmentId = (stored[0] as { parts: { attachmentId: string }[] }).parts[0]
      ?.attachmentId;
    expect(attachmentId).toMatch(/^[0-9a-f]{64}$/);
    const bytes = await result.current.readAttachment(attachmentId as string);
    expect(new Uint8Array(await (bytes as Blob).arrayBuffer())).toEqual(PNG);

    const storedPart: ChatAttachmentPart = {
      type: 'attachment',
      attachmentId: attachmentId as string,
      name: 'pixel.png',
      mimeType: 'image/png',
      size: PNG.length,
    };
    const view = render(
      <AttachmentPreview attachment={storedPart} read={result.current.readAttachment} />,
    );
    const thumbnail = await screen.findByRole('img', { name: 'pixel.png' });
    expect(thumbnail.getAttribute('src')).toBe('blob:test/1');
    expect(screen.getByText('(image/png, 70 bytes)')).toBeTruthy();
    view.unmount();
    expect(revoked).toEqual(['blob:test/1']);
  });

  it('rejects send with invalid_input for a type the model does not accept, keeping the thread as it was', async () => {
    const agent = new Agent({
      name: 'attach',
      model: openaiChatModel({ model: 'scripted', apiKey: 'x', baseURL: `${server.url}/v1` }),
      history: new MemoryHistoryStore(),
    });
    const { result } = renderHook(() => useAgent(agent));
    const text = { data: new Uint8Array([104, 105]), name: 'notes.txt', mimeType: 'text/plain' };
    let error: unknown;
    await act(async () => {
      error = await result.current
        .send('Read it', { attachments: [text] })
        .catch((thrown: unknown) => thrown);
    });
    expect(error).toMatchObject({
      code: 'invalid_input',
      details: { reason: 'attachment_type_not_accepted' },
    });
    expect(result.current.messages).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('says so when the bytes are no longer stored', async () => {
    const part: ChatAttachmentPart = {
      type: 'attachment',
      attachmentId: 'gone',
      name: 'old.png',
      mimeType: 'image/png',
      size: 3,
    };
    render(<AttachmentPreview attachment={part} read={() => Promise.resolve(undefined)} />);
    await waitFor(() => expect(screen.getByTestId('attachment').dataset.state).toBe('missing'));
    expect(screen.getByText(/no longer stored/)).toBeTruthy();
    expect(screen.queryByRole('img')).toBeNull();
  });
});
