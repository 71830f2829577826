// Several production servers on one PostgreSQL database, as a deployment runs them behind a load
// balancer, for the multi-replica tests (test/server/replicas/): started together, requests spread
// over them, and every one a test started killed afterwards, however the test ended.
import type { Agent, IncomingHttpHeaders } from 'node:http';
import { rawRequest } from './http';
import { startServerProcess, type ServerProcess } from './server-process';
import { sharedPostgres, type SharedPostgres } from './shared-postgres';

type Env = Record<string, string>;

export interface Replicas {
  /**
   * `count` servers started at the same moment, with the same settings or each its own; resolves
   * once all listen.
   */
  start(count: number, env: Env | ((replica: number) => Env)): Promise<ServerProcess[]>;
  /**
   * kill -9 every server started here that still runs, and waits until each has ended (afterEach).
   */
  killAll(): Promise<void>;
}

export function replicaSet(): Replicas {
  const started: ServerProcess[] = [];
  return {
    async start(count, env) {
      const results = await Promise.allSettled(
        Array.from({ length: count }, (_, i) =>
          startServerProcess(typeof env === 'function' ? env(i) : env),
        ),
      );
      // Those that did start are killed in afterEach even when another one failed to.
      for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
      return results.map((result) => (result as PromiseFulfilledResult<ServerProcess>).value);
    },
    async killAll() {
      const running = started.splice(0);
      for (const server of running)
        if (server.child.exitCode === null && server.child.signalCode === null)
          server.child.kill('SIGKILL');
      await Promise.all(running.map((server) => server.exited));
    },
  };
}

/**
 * Replicas on the run's shared PostgreSQL server, for one file or describe block: each test asks
 * for a database, empty (the replicas migrate it as they start) or migrated already; its servers
 * are killed after it, the databases dropped after the block.
 */
export function replicasOnSharedPostgres(): Replicas &
  Pick<SharedPostgres, 'createDatabase' | 'createMigratedDatabase'> {
  const replicas = replicaSet();
  let postgres: SharedPostgres | undefined;
  beforeAll(async () => {
    postgres = await sharedPostgres();
  });
  afterEach(() => replicas.killAll());
  afterAll(() => postgres?.dropDatabases());
  return {
    ...replicas,
    createDatabase: () => postgres!.createDatabase(),
    createMigratedDatabase: () => postgres!.createMigratedDatabase(),
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** From sending the request to the end of the answer. */
  ms: number;
}

interface Call {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A keep-alive pool for many requests; by default a connection of its own. */
  agent?: Agent;
}

/** One HTTP request to a replica; resolves with the whole answer. */
export async function send(
  server: Pick<ServerProcess, 'port'>,
  path: string,
  { method = 'GET', headers = {}, body, agent }: Call = {},
): Promise<Answer> {
  const started = Date.now();
  const res = await rawRequest(server.port, path, headers, method, body, agent ?? false);
  return {
    status: res.status,
    headers: res.headers,
    body: res.body.toString('utf8'),
    ms: Date.now() - started,
  };
}

/** A signup as the API takes it (a urlencoded form), sent to one replica. */
export function signUp(
  server: Pick<ServerProcess, 'port'>,
  email: string,
  options: Omit<Call, 'method' | 'body'> = {},
): Promise<Answer> {
  return send(server, '/api/subscriptions', {
    ...options,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: `email=${encodeURIComponent(email)}&description=replicas`,
  });
}
