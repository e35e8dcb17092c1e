import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { SecretScrubber } from '../../internal/secret-scrubber.ts';

/**
 * `error` with every secret `scrubber` knows (values this client sent) removed from its message
 * and details; `error` itself when there was nothing to remove.
 */
export function scrubError(scrubber: SecretScrubber, error: SwitchboardError): SwitchboardError {
  const message = scrubber.scrub(error.message);
  if (message === error.message) return error;
  return new SwitchboardError(error.code, message, {
    cause: error.cause,
    ...(error.details === undefined ? {} : { details: scrubber.scrubDeep({ ...error.details }) }),
  });
}
