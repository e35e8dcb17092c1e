/**
 * The human-readable message of anything thrown: an `Error`'s `message`, otherwise the value as
 * a string. The playground's one copy, until `@switchboard/core` exports its own `messageOf`.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
