// @ts-check
// A server-side consumer of @switchboard/redis and @switchboard/postgres, run under plain node
// and type-checked (checkJs, module nodenext, skipLibCheck false). Two "processes" (two sets of
// store instances) share one PostgreSQL database and one Redis: the second lists the MCP
// server's tools from Redis (status `cached`) and sees the first one's thread.
import { Agent, mcpServer } from '@switchboard/core';
import { mockModel, textTurn, toolCallTurn } from '@switchboard/core/testing';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { RedisSchemaCache } from '@switchboard/redis';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const mcpUrl = process.env.MCP_URL ?? 'http://127.0.0.1:3003/modern/mcp';

/** @param {string} name */
function worker(name) {
  const history = new PostgresHistoryStore({ connectionString: databaseUrl });
  const schemaCache = new RedisSchemaCache({ url: redisUrl });
  const demo = mcpServer({ url: mcpUrl, name: 'demo', schemaCache });
  const model = mockModel([toolCallTurn('read_file', { path: 'notes.txt' }), textTurn('Read it.')]);
  const agent = new Agent({ name, model, history, mcpServers: [demo] });
  return {
    agent,
    history,
    demo,
    async close() {
      await demo.close();
      await schemaCache.close();
      await history.close();
    },
  };
}

const first = worker('first');
const second = worker('second');
try {
  const result = await first.agent
    .execute({ threadId: 'consumer', messages: 'read notes.txt' })
    .result();
  console.log(`first: ${result.status}`);
  const tools = await second.demo.listTools();
  console.log(`second: ${tools.length} tools, ${second.demo.getSnapshot().status}`);
  const runs = await second.history.loadRuns('consumer');
  const threads = await second.history.listThreads();
  console.log(`second: ${runs.length} run, thread "${threads[0]?.title}"`);
} finally {
  await Promise.all([first.close(), second.close()]);
}
