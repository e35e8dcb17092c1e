/**
 * CLI: starts the demo MCP server, with its OAuth-protected endpoint and the test authorization
 * server, and prints their URLs.
 *
 * `PORT=3003 AUTH_PORT=3004 npx tsx packages/core/src/testing/demo-server/main.ts`
 *
 * Environment: `PORT` (default 3003), `AUTH_PORT` (the authorization server, default 3004),
 * `TOOL_COUNT` (filler tools, default 160), `PAGE_SIZE` (tools per `tools/list` page, default
 * 20). Stops on SIGINT/SIGTERM.
 */
import { startDemoServer } from './start-demo-server.ts';

function integerFromEnvironment(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer (got "${text}").`);
  }
  return value;
}

const server = await startDemoServer({
  port: integerFromEnvironment('PORT', 3003),
  toolCount: integerFromEnvironment('TOOL_COUNT', 160),
  pageSize: integerFromEnvironment('PAGE_SIZE', 20),
  oauth: { port: integerFromEnvironment('AUTH_PORT', 3004) },
});

console.log(`Switchboard demo MCP server on ${server.url}`);
console.log(`  modern (2026-07-28, MRTR)     ${server.modernUrl}`);
console.log(`  legacy (2025, sessions)       ${server.legacyUrl}`);
console.log(`  legacy HTTP+SSE (2024-11-05)  ${server.legacySseUrl}`);
console.log(`  OAuth-protected (2026-07-28)  ${server.protectedUrl ?? ''}`);
console.log(`  OAuth authorization server    ${server.authorizationServerUrl ?? ''}`);
console.log(`  fault switches                ${server.url}/control/faults`);
console.log(`  tools changed                 POST ${server.url}/control/tools-changed`);

function stop(): void {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
