import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Interrupt, Resolution } from '../vocabulary/interrupts.ts';

// The SDK's no-eval validator (JSON Schema 2020-12): safe under a strict CSP, same in Node.
const validator = new CfWorkerJsonSchemaValidator();

/**
 * Checks an answer before anything is sent (docs/architecture.md, "Security rules": form answers
 * are validated against the
 * requested schema): `action` must be known, and an `approve` of a form interrupt needs
 * `content` that satisfies `requestedSchema`.
 *
 * @returns undefined when valid, else an `invalid_resolution` error saying what is wrong.
 */
export function validateResolution(
  interrupt: Interrupt,
  resolution: Resolution,
): SwitchboardError | undefined {
  if (!['approve', 'reject', 'cancel'].includes(resolution.action)) {
    return new SwitchboardError(
      'invalid_resolution',
      `Unknown action "${String(resolution.action)}" for call ${resolution.callId}; use approve, reject or cancel.`,
    );
  }
  if (interrupt.mode !== 'form' || resolution.action !== 'approve') return undefined;
  const content = resolution.content;
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return new SwitchboardError(
      'invalid_resolution',
      `Accepting the form of call ${resolution.callId} needs "content", an object of the answers.`,
    );
  }
  if (interrupt.requestedSchema === undefined) return undefined;
  const result = validator.getValidator(interrupt.requestedSchema as never)(content);
  if (result.valid) return undefined;
  return new SwitchboardError(
    'invalid_resolution',
    `The answers for call ${resolution.callId} do not match the requested schema: ${result.errorMessage}`,
    { details: { callId: resolution.callId } },
  );
}
