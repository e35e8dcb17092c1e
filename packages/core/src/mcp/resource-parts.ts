import type { MessageResourcePart } from '../vocabulary/items.ts';
import type { McpResourceContents } from './resource-types.ts';

/**
 * Turns what `McpServer.readResource` returned into parts to attach to a user message
 * (`MessageItem.parts`, or `AgentChat.send(text, { resources })`): each body with its URI, MIME
 * type and size; a body that was too large stays a part without data (`omitted`), so the model
 * still learns it exists.
 *
 * @param about `title` (the resource's title or name) and `server` (its server's name), kept
 *   on every part for people and for the model's reference text.
 */
export function resourceParts(
  contents: readonly McpResourceContents[],
  about: { title?: string; server?: string } = {},
): MessageResourcePart[] {
  return contents.map((body) => {
    const part: MessageResourcePart = { type: 'resource', uri: body.uri, size: body.size };
    if (body.mimeType !== undefined) part.mimeType = body.mimeType;
    if ('text' in body) part.text = body.text;
    else if ('blob' in body) part.blob = body.blob;
    else part.omitted = 'too_large';
    if (about.title !== undefined) part.title = about.title;
    if (about.server !== undefined) part.server = about.server;
    return part;
  });
}
