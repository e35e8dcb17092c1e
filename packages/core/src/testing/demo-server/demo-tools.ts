import { z } from 'zod';
import { sleep } from './http-support.ts';

/** A JSON Schema object as listed in `tools/list` (`type: "object"` at the root). */
export interface ObjectJsonSchema {
  type: 'object';
  [keyword: string]: unknown;
}

/** MCP tool annotations (hints; unset is not the same as `false`). */
export interface DemoToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as the demo server lists it (the wire shape of `tools/list` entries). */
export interface DemoToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: ObjectJsonSchema;
  outputSchema?: ObjectJsonSchema;
  annotations?: DemoToolAnnotations;
}

/** A `tools/call` result in the shape both SDK generations accept. */
export type DemoToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** One progress step of a running tool. */
export interface DemoProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What an era adapter hands a shared tool implementation. */
export interface DemoToolContext {
  /** Aborts when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the caller asked for progress; a no-op otherwise. */
  reportProgress(progress: DemoProgress): Promise<void>;
}

/**
 * A JSON-RPC error a tool wants on the wire (instead of an `isError` result). Era adapters turn
 * it into their SDK's protocol error with the same code and message.
 */
export class DemoProtocolError extends Error {
  /** JSON-RPC error code, e.g. -32602 (invalid params) or -32603 (internal error). */
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.name = 'DemoProtocolError';
    this.code = code;
  }
}

/** JSON-RPC "invalid params". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC "internal error". */
export const INTERNAL_ERROR = -32603;

/**
 * A tool of the demo catalog. Shared tools carry `call`; the two elicitation tools
 * (`book_table`, `connect_account`) do not, because each protocol era asks for input its own way.
 */
export interface DemoTool {
  readonly definition: DemoToolDefinition;
  /** Validates the raw arguments and runs the tool. Invalid arguments give an `isError` result. */
  readonly call?: (rawArguments: unknown, context: DemoToolContext) => Promise<DemoToolResult>;
}

/** A text-only tool result. */
export function textResult(text: string, isError = false): DemoToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError }
    : { content: [{ type: 'text', text }] };
}

/** The `isError` result for arguments that failed validation (2025-11-25: validation errors are tool errors). */
function invalidArgumentsResult(name: string, error: z.ZodError): DemoToolResult {
  return textResult(`Invalid arguments for ${name}: ${z.prettifyError(error)}`, true);
}

/**
 * Parses tool arguments with a zod schema: the parsed value, or the `isError` result to return.
 */
export function parseToolArguments<Schema extends z.ZodType>(
  name: string,
  schema: Schema,
  rawArguments: unknown,
): { ok: true; value: z.output<Schema> } | { ok: false; result: DemoToolResult } {
  const parsed = schema.safeParse(rawArguments ?? {});
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, result: invalidArgumentsResult(name, parsed.error) };
}

function objectJsonSchema(schema: z.ZodType, io: 'input' | 'output'): ObjectJsonSchema {
  const converted = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return { ...converted, type: 'object' };
}

interface ToolSpecification<Input extends z.ZodObject> {
  name: string;
  title?: string;
  description: string;
  input: Input;
  output?: z.ZodObject;
  annotations?: DemoToolAnnotations;
  run?: (argumentsValue: z.output<Input>, context: DemoToolContext) => Promise<DemoToolResult>;
}

/** Builds a catalog entry: the JSON Schemas come from zod, `call` validates before running. */
export function defineTool<Input extends z.ZodObject>(
  specification: ToolSpecification<Input>,
): DemoTool {
  const definition: DemoToolDefinition = {
    name: specification.name,
    description: specification.description,
    inputSchema: objectJsonSchema(specification.input, 'input'),
  };
  if (specification.title !== undefined) definition.title = specification.title;
  if (specification.output !== undefined) {
    definition.outputSchema = objectJsonSchema(specification.output, 'output');
  }
  if (specification.annotations !== undefined) definition.annotations = specification.annotations;
  const run = specification.run;
  if (run === undefined) return { definition };
  return {
    definition,
    async call(rawArguments, context) {
      const parsed = parseToolArguments(specification.name, specification.input, rawArguments);
      return parsed.ok ? await run(parsed.value, context) : parsed.result;
    },
  };
}

/** Arguments of `book_table` (the details themselves come from the elicitation form). */
export const bookTableInput = z.object({
  restaurant: z.string().min(1).default("Luigi's").describe('Restaurant to book at'),
});

/** Arguments of `connect_account`. */
export const connectAccountInput = z.object({
  service: z.string().min(1).default('calendar').describe('Which account to connect'),
});

const weatherOutput = z.object({
  city: z.string(),
  temperatureCelsius: z.number(),
  conditions: z.string(),
  humidityPercent: z.number(),
});

const WEATHER_CONDITIONS = ['sunny', 'cloudy', 'light rain', 'windy', 'foggy', 'snow showers'];

/** A small stable hash (FNV-1a, 32 bit) so fake data is deterministic per input. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function weatherFor(city: string): z.output<typeof weatherOutput> {
  const hash = stableHash(city.trim().toLowerCase());
  return {
    city,
    temperatureCelsius: (hash % 41) - 5,
    conditions: WEATHER_CONDITIONS[hash % WEATHER_CONDITIONS.length] ?? 'sunny',
    humidityPercent: 20 + (Math.floor(hash / 41) % 71),
  };
}

/** The named tools every era serves (elicitation tools without `call`). */
function namedTools(): DemoTool[] {
  return [
    defineTool({
      name: 'book_table',
      title: 'Book a table',
      description:
        'Books a restaurant table. Asks the user for the booking details (name, party size, date, seating) with a form.',
      input: bookTableInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    }),
    defineTool({
      name: 'connect_account',
      title: 'Connect an account',
      description:
        'Connects a third-party account. Sends the user to an authorization page (URL-mode elicitation).',
      input: connectAccountInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    }),
    defineTool({
      name: 'slow_count',
      title: 'Slow count',
      description:
        'Counts from 1 to `count`, waiting `delayMs` between steps and reporting progress. Honours cancellation.',
      input: z.object({
        count: z.number().int().min(1).max(1000).default(5).describe('How far to count'),
        delayMs: z
          .number()
          .int()
          .min(0)
          .max(60_000)
          .default(200)
          .describe('Wait between steps, in ms'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run({ count, delayMs }, context) {
        for (let step = 1; step <= count; step += 1) {
          await sleep(delayMs, context.signal);
          if (context.signal.aborted) {
            return textResult(`Cancelled after ${step - 1} of ${count}.`, true);
          }
          await context.reportProgress({
            progress: step,
            total: count,
            message: `Counted ${step} of ${count}`,
          });
        }
        return textResult(`Counted to ${count}.`);
      },
    }),
    defineTool({
      name: 'delete_file',
      title: 'Delete a file',
      description: 'Deletes a file from the (imaginary) demo workspace. Destructive.',
      input: z.object({ path: z.string().min(1).describe('Path of the file to delete') }),
      annotations: { destructiveHint: true, readOnlyHint: false },
      async run({ path }) {
        return textResult(`Deleted ${path} (demo: nothing was really deleted).`);
      },
    }),
    defineTool({
      name: 'read_file',
      title: 'Read a file',
      description: 'Reads a text file from the (imaginary) demo workspace.',
      input: z.object({ path: z.string().min(1).describe('Path of the file to read') }),
      annotations: { readOnlyHint: true },
      async run({ path }) {
        return textResult(`Contents of ${path}:\nHello from the Switchboard demo server.`);
      },
    }),
    defineTool({
      name: 'get_weather',
      title: 'Get the weather',
      description: 'Current weather for a city, as text and as structured content.',
      input: z.object({ city: z.string().min(1).describe('City name') }),
      output: weatherOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run({ city }) {
        const weather = weatherFor(city);
        return {
          content: [{ type: 'text', text: JSON.stringify(weather) }],
          structuredContent: weather,
        };
      },
    }),
    defineTool({
      name: 'fail',
      title: 'Always fails',
      description: 'Always returns a tool error (`isError: true`).',
      input: z.object({}),
      async run() {
        return textResult('This tool always fails (demo).', true);
      },
    }),
    defineTool({
      name: 'throw_error',
      title: 'Throws',
      description: 'Always throws, so the call ends with a JSON-RPC error instead of a result.',
      input: z.object({ message: z.string().optional().describe('Error message to use') }),
      async run({ message }) {
        throw new DemoProtocolError(INTERNAL_ERROR, message ?? 'throw_error always throws (demo).');
      },
    }),
  ];
}

const FILLER_ACTIONS = [
  { verb: 'Searches', readOnly: true },
  { verb: 'Summarizes', readOnly: true },
  { verb: 'Exports', readOnly: true },
  { verb: 'Archives', readOnly: false },
  { verb: 'Translates', readOnly: true },
  { verb: 'Validates', readOnly: true },
  { verb: 'Counts', readOnly: true },
  { verb: 'Tags', readOnly: false },
  { verb: 'Deduplicates', readOnly: false },
  { verb: 'Forecasts', readOnly: true },
];

const FILLER_SUBJECTS = [
  'invoices',
  'calendar events',
  'support tickets',
  'shipping labels',
  'customer contacts',
  'product reviews',
  'expense reports',
  'build logs',
  'meeting notes',
  'inventory counts',
  'weather alerts',
  'flight bookings',
  'payroll entries',
  'marketing emails',
  'server metrics',
  'recipe cards',
];

const FILLER_SCOPES = [
  'for the sales team',
  'in the EU region',
  'from the last seven days',
  'across all workspaces',
  'for a single customer',
  'in the staging environment',
  'shared with me',
];

/** Zero-padded filler name: `tool_000`, `tool_001`, … (wider when there are over 1000). */
export function fillerToolName(index: number, toolCount: number): string {
  const width = Math.max(3, String(Math.max(0, toolCount - 1)).length);
  return `tool_${String(index).padStart(width, '0')}`;
}

/** A filler tool whose description is built from a small vocabulary, so search is meaningful. */
function fillerTool(index: number, toolCount: number): DemoTool {
  const subject = FILLER_SUBJECTS[index % FILLER_SUBJECTS.length] ?? 'records';
  const action = FILLER_ACTIONS[Math.floor(index / FILLER_SUBJECTS.length) % FILLER_ACTIONS.length];
  const verb = action?.verb ?? 'Searches';
  const scope = FILLER_SCOPES[index % FILLER_SCOPES.length] ?? '';
  const name = fillerToolName(index, toolCount);
  return defineTool({
    name,
    description: `${verb} ${subject} ${scope}. Filler tool ${index + 1} of ${toolCount} on the Switchboard demo server.`,
    input: z.object({
      query: z.string().default('').describe(`What to look for in the ${subject}`),
      limit: z.number().int().min(1).max(50).default(10).describe('Largest number of items'),
    }),
    annotations: { readOnlyHint: action?.readOnly ?? true, openWorldHint: false },
    async run({ query, limit }) {
      const matching = (stableHash(`${name}:${query}`) % limit) + 1;
      return textResult(
        `${name}: ${verb.toLowerCase()} ${subject} ${scope} matching "${query}" → ${matching} item(s) (demo data).`,
      );
    },
  });
}

/** The tool that `POST /control/tools-changed` adds and removes. */
export function createDynamicTool(): DemoTool {
  return defineTool({
    name: 'dynamic_tool',
    title: 'Dynamic tool',
    description: 'Appears and disappears when the tool list changes (POST /control/tools-changed).',
    input: z.object({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run() {
      return textResult('dynamic_tool is here.');
    },
  });
}

/**
 * The static catalog: the named tools (`book_table`, `connect_account`, `slow_count`,
 * `delete_file`, `read_file`, `get_weather`, `fail`, `throw_error`) followed by `toolCount`
 * filler tools `tool_000` ….
 */
export function createDemoTools(toolCount: number): DemoTool[] {
  const tools = namedTools();
  for (let index = 0; index < toolCount; index += 1) tools.push(fillerTool(index, toolCount));
  return tools;
}
