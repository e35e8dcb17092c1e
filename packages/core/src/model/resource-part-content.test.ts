import { describe, expect, it } from 'vitest';
import { resourcePartContent } from './resource-part-content.ts';

describe('resourcePartContent', () => {
  it('sends text as text, naming where it came from', () => {
    expect(
      resourcePartContent({
        type: 'resource',
        uri: 'demo://docs/readme',
        mimeType: 'text/markdown',
        text: '# Hi',
        size: 4,
        title: 'Readme',
        server: 'demo',
      }),
    ).toEqual({
      kind: 'text',
      text: '<resource uri="demo://docs/readme" title="Readme" server="demo" mimeType="text/markdown" bytes=4>\n# Hi\n</resource>',
    });
  });

  it('sends a PNG as an image with a caption', () => {
    expect(
      resourcePartContent({
        type: 'resource',
        uri: 'a://p.png',
        mimeType: 'image/png',
        blob: 'AAAA',
      }),
    ).toEqual({
      kind: 'image',
      mimeType: 'image/png',
      data: 'AAAA',
      caption: '[Attached image resource uri="a://p.png" mimeType="image/png"]',
    });
  });

  it('names other binaries and bodies left out for their size, never dropping them', () => {
    expect(
      resourcePartContent({
        type: 'resource',
        uri: 'a://f.bin',
        mimeType: 'application/octet-stream',
        blob: 'AAAA',
        size: 3,
      }),
    ).toEqual({
      kind: 'text',
      text: '[Attached resource uri="a://f.bin" mimeType="application/octet-stream" bytes=3: binary content this model cannot read; not included.]',
    });
    expect(
      resourcePartContent({
        type: 'resource',
        uri: 'a://big.png',
        mimeType: 'image/png',
        size: 5_000_000,
        omitted: 'too_large',
      }),
    ).toEqual({
      kind: 'text',
      text: '[Attached resource uri="a://big.png" mimeType="image/png" bytes=5000000: too large to include; not included.]',
    });
  });
});
