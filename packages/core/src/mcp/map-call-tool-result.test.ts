import { describe, expect, it } from 'vitest';
import { mapCallToolResult } from './map-call-tool-result.ts';

describe('mapCallToolResult', () => {
  it('joins all text blocks with a newline', () => {
    expect(
      mapCallToolResult({
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
          { type: 'text', text: '' },
          { type: 'text', text: 'third' },
        ],
      }),
    ).toEqual({ text: 'first\nsecond\n\nthird' });
  });

  it('keeps image, audio, resource and resource_link blocks as parts, in order', () => {
    const resource = { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' };
    const output = mapCallToolResult({
      content: [
        { type: 'text', text: 'Here you go' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource },
        {
          type: 'resource_link',
          uri: 'https://example.com/doc',
          name: 'doc',
          mimeType: 'text/html',
          description: 'A document',
        },
        { type: 'resource_link', uri: 'file:///bare' },
        { type: 'text', text: 'done' },
      ],
    });

    expect(output.text).toBe('Here you go\ndone');
    expect(output.isError).toBeUndefined();
    expect(output.parts).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource },
      {
        type: 'resource_link',
        uri: 'https://example.com/doc',
        name: 'doc',
        mimeType: 'text/html',
        description: 'A document',
      },
      { type: 'resource_link', uri: 'file:///bare' },
    ]);
  });

  it('keeps a result with only an image (no text) as a part', () => {
    const output = mapCallToolResult({
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/jpeg' }],
    });
    expect(output).toEqual({
      text: '',
      parts: [{ type: 'image', data: 'AAAA', mimeType: 'image/jpeg' }],
    });
  });

  it('keeps structuredContent next to the text', () => {
    const structuredContent = { temperature: 21.5, unit: 'celsius' };
    expect(
      mapCallToolResult({
        content: [{ type: 'text', text: 'It is 21.5 °C.' }],
        structuredContent,
      }),
    ).toEqual({ text: 'It is 21.5 °C.', structuredContent });
  });

  it('uses structuredContent as the text when there is no text', () => {
    const structuredContent = { sum: 5, nested: { ok: true } };
    const output = mapCallToolResult({ content: [], structuredContent });
    expect(output.structuredContent).toEqual(structuredContent);
    expect(JSON.parse(output.text)).toEqual(structuredContent);
    expect(mapCallToolResult({ structuredContent }).text).toBe(JSON.stringify(structuredContent));
  });

  it('marks isError results as error outputs and keeps their text', () => {
    expect(
      mapCallToolResult({ content: [{ type: 'text', text: 'City not found' }], isError: true }),
    ).toEqual({ text: 'City not found', isError: true });
    expect(mapCallToolResult({ content: [{ type: 'text', text: 'ok' }], isError: false })).toEqual({
      text: 'ok',
    });
  });

  it('keeps an unknown block type as an opaque part, named in the text', () => {
    const output = mapCallToolResult({
      content: [{ type: 'hologram', frames: 3 }],
    });
    expect(output.text).toContain('hologram');
    expect(output.parts).toEqual([
      { type: 'opaque', contentType: 'hologram', block: { type: 'hologram', frames: 3 } },
    ]);
  });

  it('maps an empty result to empty text', () => {
    expect(mapCallToolResult({})).toEqual({ text: '' });
  });
});
