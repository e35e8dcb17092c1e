// Run under plain node with zod 3.25 installed: a tool written with zod 3.25's `zod/v4` runs;
// a zod 3 schema is refused with a message naming the fix.
import { Agent, isSwitchboardError, tool } from '@switchboard/core';
import { collectRun, mockModel, textTurn, toolCallTurn } from '@switchboard/core/testing';
import { z as z3 } from 'zod';
import { z } from 'zod/v4';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const agent = new Agent({
  name: 'zod3',
  model: mockModel([toolCallTurn('add', { a: 2, b: 3 }), textTurn('5')]),
  tools: [add],
});
const { chunks, result } = await collectRun(agent.execute({ messages: 'What is 2 plus 3?' }));
const output = chunks.find((chunk) => chunk.type === 'tool.result')?.output.text;
if (result.status !== 'completed' || output !== '5') {
  throw new Error(`zod/v4 tool: ${result.status}, output ${output}, ${result.error?.message}`);
}

try {
  tool({ name: 'old', description: 'zod 3', input: z3.object({}), execute: () => '' });
  throw new Error('a zod 3 schema was accepted');
} catch (error) {
  if (!isSwitchboardError(error, 'invalid_input')) throw error;
  console.log(`zod 3 schema refused: ${error.message}`);
}
console.log('zod 3.25 (zod/v4): tool ran, output 5');
