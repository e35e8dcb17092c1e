import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { ToolContext } from './tool-types.ts';
import { tool } from './tool.ts';

const context: ToolContext = {
  signal: new AbortController().signal,
  callId: 'call_1',
  threadId: 'thread',
  runId: 'run',
  runContext: undefined,
  reportProgress: () => undefined,
  requestInput: () => Promise.reject(new Error('not used in these tests')),
  interrupt: () => {
    throw new Error('not used in these tests');
  },
};

describe('tool()', () => {
  it('derives the JSON Schema from zod: properties, required, no $schema', () => {
    const weather = tool({
      name: 'get_weather',
      description: 'Weather for a city.',
      input: z.object({
        city: z.string().describe('City name'),
        days: z.number().int().min(1).max(7).default(1),
        unit: z.enum(['celsius', 'fahrenheit']).optional(),
      }),
      annotations: { readOnlyHint: true },
      execute: () => 'sunny',
    });

    expect(weather.name).toBe('get_weather');
    expect(weather.description).toBe('Weather for a city.');
    expect(weather.annotations).toEqual({ readOnlyHint: true });
    expect(weather.server).toBeUndefined();
    const schema = weather.inputSchema;
    expect(schema).not.toHaveProperty('$schema');
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['city']);
    expect(schema.properties).toMatchObject({
      city: { type: 'string', description: 'City name' },
      days: { type: 'integer', minimum: 1, maximum: 7, default: 1 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    });
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it('has no annotations unless given', () => {
    const plain = tool({ name: 'plain', description: '', input: z.object({}), execute: () => '' });
    expect(plain).not.toHaveProperty('annotations');
    expect(plain.inputSchema).toMatchObject({ type: 'object', properties: {} });
  });

  it.each(['', 'has space', 'dot.name', 'slash/name', 'ünïcode', 'x'.repeat(65)])(
    'rejects the name %j with invalid_input',
    (name) => {
      let thrown: unknown;
      try {
        tool({ name, description: '', input: z.object({}), execute: () => '' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SwitchboardError);
      expect(isSwitchboardError(thrown, 'invalid_input')).toBe(true);
      expect((thrown as Error).message).toContain('^[a-zA-Z0-9_-]{1,64}$');
    },
  );

  it.each(['a', 'get-sum', 'snake_case_9', 'x'.repeat(64)])('accepts the name %j', (name) => {
    expect(tool({ name, description: '', input: z.object({}), execute: () => '' }).name).toBe(name);
  });

  it('validates arguments before execute and passes parsed data (defaults applied)', async () => {
    const received: unknown[] = [];
    const repeat = tool({
      name: 'repeat',
      description: 'Repeats a word.',
      input: z.object({ word: z.string(), times: z.number().int().default(2) }),
      execute: (args, toolContext) => {
        received.push([args, toolContext.callId]);
        return args.word.repeat(args.times);
      },
    });

    await expect(repeat.execute({ word: 'ab' }, context)).resolves.toBe('abab');
    expect(received).toEqual([[{ word: 'ab', times: 2 }, 'call_1']]);
  });

  it('rejects invalid arguments with invalid_tool_arguments naming each problem, without running', async () => {
    let ran = false;
    const add = tool({
      name: 'add',
      description: 'Adds.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: () => {
        ran = true;
        return '';
      },
    });

    const error = await add.execute({ a: 'two' }, context).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(ran).toBe(false);
    expect(isSwitchboardError(error, 'invalid_tool_arguments')).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid arguments for add: /);
    expect(message).toContain('expected number, received string');
    expect(message).toContain('at a');
    expect(message).toContain('at b');
    expect((error as Error).cause).toBeInstanceOf(z.ZodError);
  });

  it('passes a thrown error from execute through', async () => {
    const failing = tool({
      name: 'failing',
      description: '',
      input: z.object({}),
      execute: () => {
        throw new Error('nope');
      },
    });
    await expect(failing.execute({}, context)).rejects.toThrow('nope');
  });

  it('refuses a zod 3 schema with a message naming the fix (zod 3.25: import from zod/v4)', () => {
    // The shape of a zod 3 schema: `_def` and `safeParse`, no `_zod` (zod 4 and zod 3.25's v4).
    const zod3Schema = { _def: { typeName: 'ZodObject' }, safeParse: () => ({ success: true }) };
    let thrown: unknown;
    try {
      tool({
        name: 'legacy',
        description: 'A zod 3 schema',
        input: zod3Schema as unknown as z.ZodType,
        execute: () => 'never',
      });
    } catch (error) {
      thrown = error;
    }
    expect(isSwitchboardError(thrown, 'invalid_input')).toBe(true);
    expect((thrown as SwitchboardError).message).toContain("import * as z from 'zod/v4'");
  });
});
