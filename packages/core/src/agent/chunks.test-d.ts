/** Type tests of the `Chunk` union, checked by `npm run typecheck` (see execute-input.test-d.ts). */
import { expectTypeOf } from 'vitest';
import { ofType } from '../testing/collect-run.ts';
import type { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import type { ToolOutput, Usage } from '../vocabulary/items.ts';
import type { Chunk, RunPausedChunk, ToolResultChunk } from './chunks.ts';

declare const chunk: Chunk;

// Narrowing on `type` reaches each member's own fields.
if (chunk.type === 'text.delta') expectTypeOf(chunk.delta).toEqualTypeOf<string>();
if (chunk.type === 'tool.result') expectTypeOf(chunk.output).toEqualTypeOf<ToolOutput>();
if (chunk.type === 'run.paused') {
  expectTypeOf(chunk.interrupts).toEqualTypeOf<Interrupt[]>();
}
if (chunk.type === 'run.completed') expectTypeOf(chunk.usage).toEqualTypeOf<Usage>();
if (chunk.type === 'run.failed') expectTypeOf(chunk.error).toEqualTypeOf<SwitchboardError>();
if (chunk.type === 'model.retry') {
  expectTypeOf(chunk.delayMs).toEqualTypeOf<number>();
  expectTypeOf(chunk.status).toEqualTypeOf<number | undefined>();
}
if (chunk.type === 'model.fallback') expectTypeOf(chunk.to).toEqualTypeOf<string>();

// Every chunk carries its run and its place in the run.
expectTypeOf(chunk.runId).toEqualTypeOf<string>();
expectTypeOf(chunk.sequence).toEqualTypeOf<number>();

// `ofType` returns the member of that type, and refuses a type that is not a chunk's.
declare const chunks: Chunk[];
expectTypeOf(ofType(chunks, 'tool.result')).toEqualTypeOf<ToolResultChunk[]>();
expectTypeOf(ofType(chunks, 'run.paused')).toEqualTypeOf<RunPausedChunk[]>();
// @ts-expect-error not a chunk type
ofType(chunks, 'tool.finished');
