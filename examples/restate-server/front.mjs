// Runs the front until Ctrl-C: the agent's HTTP API for browsers, whose runs go to Restate.
// By default it allows the playground's page (:5173) to call it.
import { environment, stopOnSignal } from './environment.mjs';
import { startRestateFront } from './restate-agent-server.mjs';

const front = await startRestateFront({
  ...environment,
  port: Number(process.env.PORT ?? 3010),
  ingressUrl: process.env.RESTATE_INGRESS_URL ?? 'http://127.0.0.1:8080',
  corsOrigins: (process.env.CORS_ORIGINS ?? 'http://localhost:5173,http://127.0.0.1:5173')
    .split(',')
    .filter((origin) => origin !== ''),
  ...(process.env.AGENT_TOKEN === undefined ? {} : { token: process.env.AGENT_TOKEN }),
});
console.log(`Agent server (runs on Restate): ${front.url}`);
stopOnSignal(front);
