import { z } from 'zod';
import { textResult } from './demo-tools.ts';
import type { DemoToolResult } from './demo-tools.ts';

/** What the user did with an elicitation (form or URL). */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/**
 * The booking form `book_table` asks for (flat MCP elicitation schema): name (string, min length
 * 1), party size (integer 1–20, default 2), date (`format: date`), seating (titled single-select
 * enum indoor/outdoor) and a confirmation checkbox. `name` and `date` are required.
 */
export const bookingRequestedSchema = {
  type: 'object' as const,
  properties: {
    name: {
      type: 'string' as const,
      title: 'Name',
      description: 'Who the table is booked for',
      minLength: 1,
    },
    partySize: {
      type: 'integer' as const,
      title: 'Party size',
      description: 'Number of guests',
      minimum: 1,
      maximum: 20,
      default: 2,
    },
    date: {
      type: 'string' as const,
      title: 'Date',
      description: 'Day of the booking',
      format: 'date' as const,
    },
    seating: {
      type: 'string' as const,
      title: 'Seating',
      oneOf: [
        { const: 'indoor', title: 'Indoor' },
        { const: 'outdoor', title: 'Outdoor (terrace)' },
      ],
      default: 'indoor',
    },
    confirm: {
      type: 'boolean' as const,
      title: 'Confirm the booking',
      default: false,
    },
  },
  required: ['name', 'date'],
};

/** Validates an accepted booking form answer (the client's content is untrusted input). */
export const bookingAnswerSchema = z.object({
  name: z.string().min(1),
  partySize: z.number().int().min(1).max(20).default(2),
  date: z.iso.date(),
  seating: z.enum(['indoor', 'outdoor']).default('indoor'),
  confirm: z.boolean().default(false),
});

/** The message shown with the booking form. */
export function bookingMessage(restaurant: string): string {
  return `Book a table at ${restaurant}: who is it for, how many guests, and when?`;
}

/**
 * The `book_table` result for the user's answer, identical in both eras: booked (accept with
 * `confirm: true`), not confirmed, declined, cancelled, or an `isError` result for an invalid
 * answer.
 */
export function bookingOutcome(
  restaurant: string,
  action: ElicitationAction,
  content: unknown,
): DemoToolResult {
  if (action === 'decline') return textResult('The user declined the booking; nothing was booked.');
  if (action === 'cancel') {
    return textResult('The user cancelled the booking form; nothing was booked.');
  }
  const parsed = bookingAnswerSchema.safeParse(content ?? {});
  if (!parsed.success) {
    return textResult(`The booking answer was invalid: ${z.prettifyError(parsed.error)}`, true);
  }
  const answer = parsed.data;
  if (!answer.confirm) {
    return textResult(`The booking for ${answer.name} was not confirmed; nothing was booked.`);
  }
  const guests = answer.partySize === 1 ? '1 guest' : `${answer.partySize} guests`;
  return textResult(
    `Booked a table at ${restaurant} for ${guests} on ${answer.date} (${answer.seating}) under ${answer.name}.`,
  );
}

/** The URL `connect_account` sends the user to (served by `GET /demo/authorize`). */
export function authorizeUrl(baseUrl: string, elicitationId: string): string {
  return `${baseUrl}/demo/authorize?elicitation=${encodeURIComponent(elicitationId)}`;
}

/** The message shown with the authorization URL. */
export function connectMessage(service: string): string {
  return `Open the demo authorization page to connect your ${service} account.`;
}

/** The `connect_account` result for the user's answer, identical in both eras. */
export function connectOutcome(
  service: string,
  action: ElicitationAction,
  pageVisited: boolean,
): DemoToolResult {
  if (action === 'decline') {
    return textResult(`The user declined to connect the ${service} account.`);
  }
  if (action === 'cancel') {
    return textResult(`The user cancelled connecting the ${service} account.`);
  }
  const visited = pageVisited
    ? 'the authorization page was visited'
    : 'the authorization page was not visited yet';
  return textResult(`Connected the ${service} account (${visited}).`);
}
