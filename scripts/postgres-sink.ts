// A throwaway PostgreSQL server for scripts that check the production build against one
// (check-docker-runtime.sh): the test fixture (test/support/postgres.ts) in a process of its own.
//   node --import tsx scripts/postgres-sink.ts
// Prints one line, the URL of a fresh database, and runs until its stdin closes (or SIGTERM),
// then stops the server and removes its folder.
import { startPostgres } from '../test/support/postgres';

async function main(): Promise<void> {
  const server = await startPostgres();
  const url = await server.createDatabase();
  process.stdout.write(`${url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.stdin.on('end', stop).on('close', stop).resume();
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`postgres-sink: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
