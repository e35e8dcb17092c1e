import { createDemoTools } from '@switchboard/fixtures/demo-tools';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../tools/tool-types.ts';
import type { JsonSchema } from '../vocabulary/interrupts.ts';
import { DEFERRED_LISTED_TOOLS, Toolset, deferredToolsSection } from './toolset.ts';

const bytes = (value: unknown): number =>
  Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');

/** `count` tools with long names and long, multi-line descriptions (worst case for the section). */
function manyTools(count: number, server?: (index: number) => string): Tool[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `a_rather_long_tool_name_for_testing_the_bound_${String(index).padStart(6, '0')}`,
    description: `${`Does thing number ${index} with words like invoice, ledger and payroll. `.repeat(8)}\nSecond line.`,
    inputSchema: { type: 'object', properties: {} },
    deferred: true,
    ...(server === undefined ? {} : { server: server(index) }),
    execute: () => Promise.resolve(''),
  }));
}

/** The demo server's catalog (8 named + 1,000 filler tools) as MCP-sourced agent tools. */
function demoTools(deferred: boolean): Tool[] {
  return createDemoTools(1000).map(({ definition }) => ({
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema as JsonSchema,
    server: 'demo',
    deferred,
    execute: () => Promise.resolve(''),
  }));
}

describe('the deferred-tools instructions section', () => {
  it('is bounded: 10,000 tools take about as many bytes as 100 (a few KB)', () => {
    const sizes = [100, 1_000, 10_000].map((count) =>
      bytes(deferredToolsSection(manyTools(count))),
    );
    for (const size of sizes) expect(size).toBeLessThan(5_000);
    // Only the counts' digits differ.
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(20);
  });

  it(`names the first ${DEFERRED_LISTED_TOOLS} tools and counts the rest`, () => {
    const section = deferredToolsSection(manyTools(1_000)) ?? '';
    const listed = section.split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toHaveLength(DEFERRED_LISTED_TOOLS);
    expect(listed[0]).toMatch(
      /^- a_rather_long_tool_name_for_testing_the_bound_000000: Does thing/,
    );
    // The first description line, clipped to 100 characters; never the second line.
    expect(listed.every((line) => line.endsWith('…'))).toBe(true);
    expect(section).not.toContain('Second line');
    expect(section).toContain(`… and 980 more: use tool_search.`);
    expect(section).toContain('1,000 more tool(s) are available but not loaded (local: 1,000).');
    expect(section).toContain('"select:name1,name2"');
  });

  it('names at most 8 sources, the largest first', () => {
    const section =
      deferredToolsSection(
        manyTools(1_000, (index) => `server${index % 20 < 10 ? 'A' : index % 20}`),
      ) ?? '';
    expect(section).toContain('(MCP server "serverA": 500, MCP server "server10": 50,');
    expect(section).toContain('and 3 more source(s))');
  });

  it('suggests description words that tell tools apart, as written', () => {
    const section = deferredToolsSection(demoTools(true)) ?? '';
    const words = /Words their descriptions use: (.*)\.$/m.exec(section)?.[1]?.split(', ') ?? [];
    expect(words.length).toBeGreaterThan(0);
    expect(words.length).toBeLessThanOrEqual(40);
    expect(words).toEqual(expect.arrayContaining(['invoices', 'summarizes', 'sales', 'region']));
    // In every filler description, so useless for a search: left out.
    expect(words).not.toContain('filler');
    expect(words).not.toContain('switchboard');
  });

  it('lists every tool when there are few, and nothing once all are loaded', () => {
    const tools = manyTools(3);
    expect(
      deferredToolsSection(tools)
        ?.split('\n')
        .filter((line) => line.startsWith('- ')),
    ).toHaveLength(3);
    expect(deferredToolsSection(tools)).not.toContain('more:');
    expect(
      new Toolset(
        tools,
        tools.map((tool) => tool.name),
      ).instructionsSection(),
    ).toBeUndefined();
  });

  it('keeps the whole prompt with 1,000 deferred demo tools within 2% of the undeferred one', () => {
    const deferred = new Toolset(demoTools(true), []);
    const eager = new Toolset(demoTools(false), []);
    const deferredBytes =
      bytes(deferred.modelTools()) + bytes(deferred.instructionsSection() ?? '');
    const eagerBytes = bytes(eager.modelTools()) + bytes(eager.instructionsSection() ?? '');
    expect(eager.instructionsSection()).toBeUndefined();
    expect(deferredBytes / eagerBytes).toBeLessThanOrEqual(0.02);
  });
});
