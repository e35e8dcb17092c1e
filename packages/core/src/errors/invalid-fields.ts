/** One field a validator rejected: where (a dotted path, `''` for the whole value) and why. */
export interface InvalidField {
  /** The field's path, such as `date` or `guests.0.name`; `''` when the whole value is wrong. */
  path: string;
  /** The validator's reason, such as `Invalid ISO date` (one short line). */
  problem: string;
}

const maxFields = 8;
const maxProblemLength = 80;

/**
 * The fields a validation failure names, read from its message, or `undefined` when the message
 * is not one: a JSON array of Zod issues (`[{ "path": [...], "message": ... }]`, what
 * `ZodError.message` is), Zod's `prettifyError` text (`✖ reason\n  → at path`), or Ajv's
 * `errorsText` (`data/date must match format "date", data must have required property 'name'`,
 * what the MCP SDK puts after "does not match requested schema"), or `@cfworker/json-schema`'s
 * (`#/date: String does not match format "date".; #: Instance does not have required property
 * "name".`, what Switchboard's own answer check says). At most 8 fields, each reason
 * cut to 80 characters, so a 3 KB dump becomes a short list.
 */
export function invalidFieldsOf(message: string): InvalidField[] | undefined {
  const found =
    zodIssuesOf(message) ??
    prettifiedIssuesOf(message) ??
    cfWorkerIssuesOf(message) ??
    ajvIssuesOf(message);
  if (found === undefined || found.length === 0) return undefined;
  const unique = new Map<string, InvalidField>();
  for (const field of found) {
    if (!unique.has(field.path))
      unique.set(field.path, { ...field, problem: short(field.problem) });
  }
  return [...unique.values()].slice(0, maxFields);
}

/** Zod issues serialised as JSON somewhere in the message (`ZodError.message` is such an array). */
function zodIssuesOf(message: string): InvalidField[] | undefined {
  const start = message.indexOf('[');
  const end = message.lastIndexOf(']');
  if (start < 0 || end <= start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const fields: InvalidField[] = [];
  for (const issue of parsed) {
    if (typeof issue !== 'object' || issue === null) return undefined;
    const { path, message: problem } = issue as { path?: unknown; message?: unknown };
    if (!Array.isArray(path) || typeof problem !== 'string') return undefined;
    fields.push({ path: path.map(String).join('.'), problem });
  }
  return fields;
}

/** `z.prettifyError` text: `✖ Invalid input: expected string\n  → at name` per issue. */
function prettifiedIssuesOf(message: string): InvalidField[] | undefined {
  if (!message.includes('✖')) return undefined;
  const fields: InvalidField[] = [];
  for (const block of message.split('✖').slice(1)) {
    const [problem = '', ...rest] = block.split('\n');
    const at = rest.find((line) => line.trim().startsWith('→ at '));
    fields.push({
      path: at === undefined ? '' : at.trim().slice('→ at '.length).trim(),
      problem: problem.trim(),
    });
  }
  return fields;
}

/**
 * `@cfworker/json-schema` errors joined by `; `: `#/pointer: reason`. "Property "x" does not match
 * schema." only repeats a more precise error of `#/x`, so it is skipped when that one is there.
 */
function cfWorkerIssuesOf(message: string): InvalidField[] | undefined {
  const fields: InvalidField[] = [];
  const summaries: InvalidField[] = [];
  for (const match of message.matchAll(/#((?:\/[^:\s]*)?): ([^;]*?)(?=; #|$)/g)) {
    const pointer = (match[1] ?? '').split('/').filter(Boolean).join('.');
    const problem = (match[2] ?? '').trim();
    const required = /^Instance does not have required property "([^"]+)"/.exec(problem);
    const summary = /^Property "([^"]+)" does not match schema/.exec(problem);
    const join = (name: string) => (pointer === '' ? name : `${pointer}.${name}`);
    if (required !== null) fields.push({ path: join(required[1] ?? ''), problem: 'Required' });
    else if (summary !== null) summaries.push({ path: join(summary[1] ?? ''), problem });
    else if (!/^Instance does not match/.test(problem)) fields.push({ path: pointer, problem });
  }
  for (const summary of summaries) {
    if (!fields.some((field) => field.path === summary.path)) fields.push(summary);
  }
  return fields.length === 0 ? undefined : fields;
}

/** Ajv's `errorsText`: `data/date must match format "date", data must have required property 'x'`. */
function ajvIssuesOf(message: string): InvalidField[] | undefined {
  const fields: InvalidField[] = [];
  const pattern = /(?:^|[\s,:])data((?:\/[^\s,]*)?) (must [^,]*)/g;
  for (const match of message.matchAll(pattern)) {
    const pointer = match[1] ?? '';
    const problem = match[2] ?? '';
    const required = /^must have required property '([^']+)'/.exec(problem);
    const base = pointer.split('/').filter(Boolean).join('.');
    fields.push(
      required === null
        ? { path: base, problem }
        : {
            path: base === '' ? (required[1] ?? '') : `${base}.${required[1] ?? ''}`,
            problem: 'Required',
          },
    );
  }
  return fields.length === 0 ? undefined : fields;
}

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= maxProblemLength ? line : `${line.slice(0, maxProblemLength - 1)}…`;
}
