import * as z from 'zod/v4';

/** An id made by a client: a UUID, or any short id of URL-safe characters. */
const clientId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'an id of 1 to 100 characters A-Z a-z 0-9 _ -');

/** A resource attached to a user message (`MessageResourcePart`). */
const resourcePart = z.strictObject({
  type: z.literal('resource'),
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string().optional(),
  blob: z.string().optional(),
  size: z.number().nonnegative().optional(),
  omitted: z.literal('too_large').optional(),
  title: z.string().optional(),
  server: z.string().optional(),
});

/**
 * A message a browser may send: the user's only. A `system` or `assistant` message from a
 * client would let the page write the agent's instructions or put words in its mouth.
 */
const userMessage = z.union([
  z.string(),
  z.strictObject({
    type: z.literal('message'),
    role: z.literal('user'),
    content: z.string(),
    parts: z.array(resourcePart).optional(),
  }),
]);

/** A human's answer to an interrupt (`Resolution`, vocabulary/interrupts.ts). */
const resolution = z.strictObject({
  callId: z.string().min(1),
  action: z.enum(['approve', 'reject', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

const modelRetry = z.strictObject({
  maxAttempts: z.number().optional(),
  initialDelayMs: z.number().optional(),
  backoffFactor: z.number().optional(),
  maxDelayMs: z.number().optional(),
  jitter: z.number().optional(),
  totalTimeoutMs: z.number().optional(),
});

/**
 * `POST runs` (`RemoteExecuteBody`, remote/agent-wire.ts): exactly one of `messages` (at least one) and
 * `resolutions` (at least one). Unknown fields are refused, so a client cannot slip in what the
 * server decides (`runContext`, models).
 */
export const executeBodySchema = z.strictObject({
  handleId: clientId,
  input: z.union([
    z.strictObject({
      threadId: clientId,
      messages: z.union([userMessage, z.array(userMessage).min(1)]),
      modelRetry: modelRetry.optional(),
      parentRunId: z.union([z.string().min(1).max(200), z.null()]).optional(),
    }),
    z.strictObject({
      threadId: clientId,
      resolutions: z.array(resolution).min(1),
      modelRetry: modelRetry.optional(),
    }),
  ]),
});
// Its output is a `RemoteExecuteBody`: zod types absent optional fields as `| undefined`, which
// parsed JSON never holds, so the handler takes the parsed value as the wire type.

/** `PUT threads/:threadId/branch` (`BranchSelection`). */
export const branchSelectionBodySchema = z.strictObject({
  leafRunId: z.string().min(1).max(200),
  selectedAt: z.number().nonnegative(),
});

/** `PATCH threads/:threadId`. */
export const renameBodySchema = z.strictObject({ title: z.string().min(1).max(500) });
