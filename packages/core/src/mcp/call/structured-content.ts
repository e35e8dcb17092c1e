import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import { toolError } from '../../tools/tool-errors.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';

const validator = new CfWorkerJsonSchemaValidator();

type CompiledValidator = ReturnType<CfWorkerJsonSchemaValidator['getValidator']>;
/**
 * Compiled validators by schema object: compiling dereferences the whole schema, so each listed
 * `outputSchema` is compiled once, not once per call (dropped with the listing that holds it).
 */
const compiled = new WeakMap<object, CompiledValidator>();

function validatorFor(schema: Record<string, unknown>): CompiledValidator {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = validator.getValidator(schema as never);
    compiled.set(schema, check);
  }
  return check;
}

/**
 * `output` checked against the tool's `outputSchema` (spec: structured content must conform):
 * an error output (`invalid_structured_content`) when it is missing or does not match; the
 * original text is kept for the model.
 */
export function checkStructuredContent(
  output: ToolOutput,
  outputSchema: Record<string, unknown> | undefined,
): ToolOutput {
  if (outputSchema === undefined || output.isError === true) return output;
  if (output.structuredContent === undefined) {
    return {
      ...output,
      ...toolError(
        'invalid_structured_content',
        'The tool declares an outputSchema but sent no structuredContent.',
        output.text,
      ),
    };
  }
  const result = validatorFor(outputSchema)(output.structuredContent);
  if (result.valid) return output;
  const message = `The tool's structuredContent does not match its outputSchema: ${result.errorMessage}`;
  return {
    ...output,
    ...toolError('invalid_structured_content', message, `${output.text}\n\n[${message}]`),
  };
}
