// `zod/v4` is zod 4 in zod 4.x and the bundled zod 4 in zod 3.25+: one import serves both. A
// namespace import, never `import { z }`: esbuild keeps all of zod (every locale) for the
// re-exported `z` object, ~65 KiB gzip more (docs/architecture.md, "Bundle size").
import * as z from 'zod/v4';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { ToolAnnotations } from '../vocabulary/interrupts.ts';
import type { ApprovalPredicate, Tool, ToolContext } from './tool-types.ts';

/** Options of {@link tool}. */
export interface ToolOptions<Input extends z.ZodType> {
  /** Provider-facing name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  description: string;
  /** Zod schema of the arguments; its JSON Schema goes to the model. */
  input: Input;
  annotations?: ToolAnnotations;
  /** Hold each call for approval: always, or when the predicate says so. Default false. */
  needsApproval?: boolean | ApprovalPredicate;
  /** Keep out of the model's tool list until `tool_search` finds it. Default false. */
  deferred?: boolean;
  /** Runs with arguments already validated against `input`. */
  execute(args: z.output<Input>, context: ToolContext): unknown;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a local tool from a zod schema. The JSON Schema sent to the model is derived with
 * `z.toJSONSchema`; the model's arguments are validated before `execute` runs, and invalid
 * arguments throw a {@link SwitchboardError} `invalid_tool_arguments` whose message lists the
 * problems, which the agent hands to the model as an error output so it can correct itself.
 *
 * `input` must be a zod 4 schema: `import * as z from 'zod'` with zod 4, or
 * `import * as z from 'zod/v4'` with zod 3.25 or later.
 *
 * @throws SwitchboardError `invalid_input` when `name` is not provider-safe, or when `input` is a
 * zod 3 schema (zod 3's own `import * as z from 'zod'`).
 */
export function tool<Input extends z.ZodType>(options: ToolOptions<Input>): Tool {
  if (!isZod4Schema(options.input)) {
    throw new SwitchboardError(
      'invalid_input',
      `Tool "${options.name}": input is not a zod 4 schema. With zod 3.25+, import * as z from 'zod/v4'; with zod 4, from 'zod'.`,
    );
  }
  if (!TOOL_NAME.test(options.name)) {
    throw new SwitchboardError(
      'invalid_input',
      `Tool name "${options.name}" must match ${TOOL_NAME.source} (provider tool-name rule).`,
    );
  }
  const inputSchema = z.toJSONSchema(options.input, { io: 'input' }) as Record<string, unknown>;
  delete inputSchema.$schema;
  const definition: Tool = {
    name: options.name,
    description: options.description,
    inputSchema,
    async execute(args, context) {
      const parsed = options.input.safeParse(args);
      if (!parsed.success) {
        throw new SwitchboardError(
          'invalid_tool_arguments',
          `Invalid arguments for ${options.name}: ${z.prettifyError(parsed.error)}`,
          { cause: parsed.error },
        );
      }
      return await options.execute(parsed.data, context);
    },
  };
  if (options.annotations !== undefined) definition.annotations = options.annotations;
  if (options.needsApproval !== undefined) definition.needsApproval = options.needsApproval;
  if (options.deferred !== undefined) definition.deferred = options.deferred;
  return definition;
}

/** zod 4 schemas (also zod 3.25's `zod/v4`) carry `_zod`; zod 3 schemas carry only `_def`. */
function isZod4Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value;
}
