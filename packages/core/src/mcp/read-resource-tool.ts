import * as z from 'zod/v4';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { tool } from '../tools/tool.ts';
import { toolError } from '../tools/tool-errors.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { ToolOutput, ToolResultPart } from '../vocabulary/items.ts';
import type { McpServer } from './mcp-server.ts';

/** The meta-tool's name. */
export const READ_RESOURCE_NAME = 'read_resource';

/** Options of {@link readResourceTool}. */
export interface ReadResourceToolOptions {
  /** The largest body the model gets, in bytes. Default each server's `maxResourceBytes`. */
  maxBytes?: number;
  /** Keep it out of the model's list until `tool_search` finds it. Default false. */
  deferred?: boolean;
}

/**
 * An opt-in `read_resource` tool for the model (add it to `AgentOptions.tools`): reads a resource
 * of one of `servers` by URI (`McpServer.readResource`). Text comes back as the output's text;
 * images and other binaries as parts with their MIME type (never dropped); a body over the size
 * limit as a line naming its URI, MIME type and size. Read-only (`readOnlyHint`). A failure —
 * unknown server or resource, a server error — is an error output, never a thrown error.
 * The model finds URIs in resource links of tool results, or in the app's instructions.
 *
 * @param servers The servers it may read from, by `McpServer.name`.
 */
export function readResourceTool(
  servers: readonly McpServer[],
  options: ReadResourceToolOptions = {},
): Tool {
  const names = servers.map((server) => server.name);
  return tool({
    name: READ_RESOURCE_NAME,
    description:
      `Reads an MCP resource by its URI (for example one a tool returned as a resource link). ` +
      `Servers: ${names.map((name) => JSON.stringify(name)).join(', ')}.`,
    input: z.object({
      uri: z.string().min(1).describe('The resource URI'),
      server: z
        .string()
        .optional()
        .describe(`The server to read it from; default the first: ${names[0] ?? '(none)'}`),
    }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    ...(options.deferred === undefined ? {} : { deferred: options.deferred }),
    async execute({ uri, server }, context): Promise<ToolOutput> {
      const target =
        server === undefined ? servers[0] : servers.find((candidate) => candidate.name === server);
      if (target === undefined) {
        return toolError(
          'invalid_tool_arguments',
          `No MCP server named ${JSON.stringify(server ?? '')}; servers: ${names.join(', ')}.`,
        );
      }
      try {
        const bodies = await target.readResource(uri, {
          signal: context.signal,
          runContext: context.runContext,
          ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
        });
        const texts: string[] = [];
        const parts: ToolResultPart[] = [];
        for (const body of bodies) {
          const about = `${body.uri} (${body.mimeType ?? 'unknown type'}, ${body.size} bytes)`;
          if ('text' in body) texts.push(body.text);
          else if ('blob' in body) {
            const mimeType = body.mimeType ?? 'application/octet-stream';
            parts.push(
              mimeType.startsWith('image/')
                ? { type: 'image', data: body.blob, mimeType }
                : { type: 'resource', resource: { uri: body.uri, mimeType, blob: body.blob } },
            );
            texts.push(`[Binary resource ${about}]`);
          } else texts.push(`[Resource ${about} is too large to include.]`);
        }
        const output: ToolOutput = { text: texts.join('\n') };
        if (parts.length > 0) output.parts = parts;
        return output;
      } catch (error) {
        if (isSwitchboardError(error, 'aborted')) throw error;
        const code = isSwitchboardError(error) ? error.code : 'tool_execution_failed';
        return toolError(code, error instanceof Error ? error.message : String(error));
      }
    },
  });
}
