import type { MessageItem } from '../vocabulary/items.ts';

/** A user message with a text resource, a PNG and a binary too large to inline. */
export const withResources: MessageItem = {
  type: 'message',
  role: 'user',
  content: 'Use these.',
  parts: [
    {
      type: 'resource',
      uri: 'demo://docs/readme',
      mimeType: 'text/markdown',
      text: '# Hi',
      size: 4,
    },
    {
      type: 'resource',
      uri: 'demo://images/pixel.png',
      mimeType: 'image/png',
      blob: 'iVBO',
      size: 3,
    },
    {
      type: 'resource',
      uri: 'demo://files/large.bin',
      mimeType: 'application/octet-stream',
      size: 2097152,
      omitted: 'too_large',
    },
  ],
};
/** How each provider's converter writes the text resource. */
export const README_TEXT =
  '<resource uri="demo://docs/readme" mimeType="text/markdown" bytes=4>\n# Hi\n</resource>';
/** The caption sent beside the image. */
export const PIXEL_CAPTION =
  '[Attached image resource uri="demo://images/pixel.png" mimeType="image/png" bytes=3]';
/** The reference sent in place of the body too large to inline. */
export const LARGE_TEXT =
  '[Attached resource uri="demo://files/large.bin" mimeType="application/octet-stream" bytes=2097152: too large to include; not included.]';
