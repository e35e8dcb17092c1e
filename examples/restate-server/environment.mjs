// The settings both scripts read (environment variables), with defaults for the commands in
// README.md: everything on 127.0.0.1.
export const environment = {
  host: process.env.HOST ?? '127.0.0.1',
  databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6380',
  adminUrl: process.env.RESTATE_ADMIN_URL ?? 'http://127.0.0.1:9070',
};

/** Stops `server` on Ctrl-C or SIGTERM, then exits. */
export function stopOnSignal(server) {
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
