/**
 * A Restate worker process for the tests and the benchmark: serves `agentObject` on
 * 127.0.0.1:`PORT` with the scripted model (`MODEL_URL`), PostgreSQL history (`DATABASE_URL`),
 * Redis chunks (`REDIS_URL`) and three tools that report to the test's effects server
 * (`EFFECTS_URL`): `pay` (a side effect, counted), `hold` (answers when the test releases it),
 * `transfer` (needs approval) and `whoami` (reports the run's `runContext.user`). Prints `listening` once it serves.
 */
import './promise-with-resolvers-test-support.ts';
import { createServer } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { tool } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { z } from 'zod';
import { agentObject } from './agent-object.ts';
import { RedisChunkLog } from './redis-chunk-log.ts';

const environment = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const effectsUrl = environment('EFFECTS_URL');
const report = async (path: string, callId: string): Promise<string> => {
  const response = await fetch(`${effectsUrl}/${path}`, {
    method: 'POST',
    body: JSON.stringify({ callId, worker: process.pid }),
  });
  return await response.text();
};

/** `callId`, then `:<user>` when the run has a `runContext` with a user. */
const withUser = (callId: string, runContext: unknown): string => {
  const user = (runContext as { user?: unknown } | undefined)?.user;
  return typeof user === 'string' ? `${callId}:${user}` : callId;
};

const tools = [
  tool({
    name: 'pay',
    description: 'Pays an amount (a side effect: must happen once).',
    input: z.object({ amount: z.number() }),
    execute: async (args, context) => `paid ${args.amount}: ${await report('pay', context.callId)}`,
  }),
  tool({
    name: 'hold',
    description: 'Waits until the test releases it.',
    input: z.object({}),
    execute: async (_args, context) => `held: ${await report('hold', context.callId)}`,
  }),
  tool({
    name: 'transfer',
    description: 'Transfers money; a human approves it first.',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: async (args, context) =>
      `transferred ${args.amount}: ${await report('transfer', withUser(context.callId, context.runContext))}`,
  }),
  tool({
    name: 'whoami',
    description: 'Tells whom the run is for (its runContext).',
    input: z.object({}),
    execute: async (_args, context) =>
      `you are ${await report('whoami', withUser(context.callId, context.runContext))}`,
  }),
];

// Sized for the test's burst (up to 100 runs a worker at once); two workers and the client stay
// under the test server's 100 connections. A wait beyond the pool's limit is retried (journaledHistory).
const history = new PostgresHistoryStore({
  connectionString: environment('DATABASE_URL'),
  maxConnections: 20,
});
const chunks = new RedisChunkLog({ url: environment('REDIS_URL') });
const object = agentObject({
  agent: {
    name: 'durable',
    model: openaiChatModel({
      baseURL: `${environment('MODEL_URL')}/v1`,
      apiKey: 'x',
      model: 'scripted',
      maxRetries: 0,
    }),
    // The agent's default model retries (3 attempts, inside the model step): a connection the
    // scripted model server refused under a burst of runs is retried as in production.
    tools,
  },
  history,
  chunks,
});

// HTTP/2 (cleartext), as Restate speaks to deployments, on loopback only.
const server = createServer(restate.createEndpointHandler({ services: [object] }));
server.listen(Number(environment('PORT')), '127.0.0.1', () => process.stdout.write('listening\n'));
