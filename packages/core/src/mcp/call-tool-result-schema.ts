import {
  specTypeSchemas,
  withInputRequired,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';

/** Content block types of MCP 2025-11-25 `CallToolResult.content` this client maps. */
const KNOWN_BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

const strict = specTypeSchemas.CallToolResult['~standard'];

/**
 * The SDK's `CallToolResult` schema, except that a content block of a type it does not know is
 * not a reason to reject the whole result: such blocks (objects with a string `type`) are set
 * aside, the rest is validated as usual, and they are put back in their places for
 * `mapCallToolResult` to keep as opaque parts. Known block types are still checked.
 */
const lenientCallToolResult: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'switchboard',
    validate(value) {
      if (typeof value !== 'object' || value === null) return strict.validate(value);
      const content = (value as { content?: unknown }).content;
      if (!Array.isArray(content)) return strict.validate(value);
      const unknown = new Map<number, unknown>();
      const known: unknown[] = [];
      content.forEach((block: unknown, index) => {
        const type = (block as { type?: unknown } | null)?.type;
        if (typeof type === 'string' && !KNOWN_BLOCK_TYPES.has(type)) unknown.set(index, block);
        else known.push(block);
      });
      if (unknown.size === 0) return strict.validate(value);
      const checked = strict.validate({ ...value, content: known });
      const restore = (result: StandardSchemaV1.Result<unknown>) => {
        if (result.issues !== undefined) return result;
        const validated = [...((result.value as { content: unknown[] }).content ?? [])];
        for (const [index, block] of unknown) validated.splice(index, 0, block);
        return { value: { ...(result.value as object), content: validated } };
      };
      return checked instanceof Promise ? checked.then(restore) : restore(checked);
    },
  },
};

/** What `tools/call` may answer: a (leniently checked) result, or MRTR `input_required`. */
export const CALL_TOOL_RESULT_SCHEMA = withInputRequired(lenientCallToolResult);
