import type { ModelToolDefinition } from '../model/model.ts';
import { fromStrictArguments, toStrictSchema } from '../model/strict-schema.ts';
import type { StrictSchemaResult } from '../model/strict-schema.ts';
import type { JsonSchema } from '../vocabulary/interrupts.ts';

/** A tool as both OpenAI APIs take it (the Chat Completions one nests it under `function`). */
export interface OpenAIToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** True only when the adapter has `strict: true` and the schema converted. */
  strict: boolean;
}

/**
 * Per-model tool schema conversion of the OpenAI adapters: non-strict by default; with `strict`
 * each tool whose schema converts ({@link toStrictSchema}) is sent strict, any other is sent as it
 * is with one warning per tool name for the model's lifetime. Conversions are cached per schema
 * object. Also turns a strict tool's arguments back into its own schema's shape.
 */
export class OpenAIToolSchemas {
  readonly #strict: boolean;
  readonly #onWarning: (message: string) => void;
  readonly #cache = new WeakMap<JsonSchema, StrictSchemaResult>();
  readonly #warned = new Set<string>();

  constructor(options: {
    strict?: boolean | undefined;
    onWarning?: ((message: string) => void) | undefined;
  }) {
    this.#strict = options.strict === true;
    this.#onWarning = options.onWarning ?? ((message) => console.warn(message));
  }

  /** The schemas to send for `tools`, in order. */
  convert(tools: readonly ModelToolDefinition[]): OpenAIToolSchema[] {
    return tools.map((tool) => {
      const base = { name: tool.name, description: tool.description };
      if (!this.#strict) return { ...base, parameters: tool.inputSchema, strict: false };
      const result = this.#toStrict(tool.inputSchema);
      if ('schema' in result) return { ...base, parameters: result.schema, strict: true };
      if (!this.#warned.has(tool.name)) {
        this.#warned.add(tool.name);
        this.#onWarning(
          `Switchboard: the tool "${tool.name}" is sent without strict mode because its schema cannot be made strict: ${result.error}`,
        );
      }
      return { ...base, parameters: tool.inputSchema, strict: false };
    });
  }

  /**
   * The arguments of a call to `name` in the shape of the tool's own schema: for a tool sent
   * strict, `null`s standing for omitted optional properties are dropped; otherwise (and for
   * invalid JSON) the text is returned unchanged.
   */
  restoreArguments(
    tools: readonly ModelToolDefinition[],
    name: string,
    argumentsText: string,
  ): string {
    if (!this.#strict) return argumentsText;
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined || !('schema' in this.#toStrict(tool.inputSchema))) return argumentsText;
    return fromStrictArguments(tool.inputSchema, argumentsText);
  }

  #toStrict(schema: JsonSchema): StrictSchemaResult {
    let result = this.#cache.get(schema);
    if (result === undefined) {
      result = toStrictSchema(schema);
      this.#cache.set(schema, result);
    }
    return result;
  }
}
