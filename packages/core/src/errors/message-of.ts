/**
 * The human-readable message of anything thrown: an `Error`'s `message`, otherwise the value as
 * a string. For building messages and error outputs, never for branching (branch on codes).
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
