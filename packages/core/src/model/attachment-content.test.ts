import { describe, expect, it } from 'vitest';
import type { MessageAttachmentPart } from '../vocabulary/items.ts';
import { attachmentContent, readAttachmentData } from './attachment-content.ts';
import { ANTHROPIC_ATTACHMENT_LIMITS } from './provider-attachment-limits.ts';

const part = (mimeType: string, name = 'file'): MessageAttachmentPart => ({
  type: 'attachment',
  attachmentId: 'a1',
  name,
  mimeType,
  size: 3,
});

describe('attachmentContent', () => {
  it('is an image for an accepted image type, a file for an accepted document', () => {
    const data = new Map([['a1', 'AQID']]);
    expect(
      attachmentContent(part('image/png', 'p.png'), data, ANTHROPIC_ATTACHMENT_LIMITS),
    ).toEqual({
      kind: 'image',
      mimeType: 'image/png',
      data: 'AQID',
      caption: '[Attached file name="p.png" mimeType="image/png" bytes=3]',
    });
    expect(
      attachmentContent(part('application/pdf', 'n.pdf'), data, ANTHROPIC_ATTACHMENT_LIMITS),
    ).toEqual({
      kind: 'file',
      mimeType: 'application/pdf',
      name: 'n.pdf',
      data: 'AQID',
    });
  });

  it('is a reference naming the file when its bytes are gone or the model cannot read the type', () => {
    expect(
      attachmentContent(part('image/png', 'p.png'), new Map(), ANTHROPIC_ATTACHMENT_LIMITS),
    ).toEqual({
      kind: 'text',
      text: '[Attached file name="p.png" mimeType="image/png" bytes=3: its bytes are no longer stored.]',
    });
    expect(
      attachmentContent(
        part('text/csv', 'x.csv'),
        new Map([['a1', 'AQID']]),
        ANTHROPIC_ATTACHMENT_LIMITS,
      ),
    ).toEqual({
      kind: 'text',
      text: '[Attached file name="x.csv" mimeType="text/csv" bytes=3: a type this model cannot read; not included.]',
    });
  });
});

describe('readAttachmentData', () => {
  it('reads each attachment once, as base64, and leaves out what is not stored', async () => {
    const reads: string[] = [];
    const data = await readAttachmentData(
      {
        tools: [],
        items: [
          {
            type: 'message',
            role: 'user',
            content: '',
            parts: [part('image/png'), part('image/png')],
          },
          {
            type: 'message',
            role: 'user',
            content: '',
            parts: [{ ...part('image/png'), attachmentId: 'gone' }],
          },
        ],
        readAttachment: async (id) => {
          reads.push(id);
          return id === 'a1' ? new Blob([Uint8Array.of(1, 2, 3)]) : undefined;
        },
      },
      new AbortController().signal,
    );
    expect(reads).toEqual(['a1', 'gone']);
    expect([...data]).toEqual([['a1', 'AQID']]);
  });
});
