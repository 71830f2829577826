// An open-loop load generator: each stream's requests go out on a fixed schedule (the i-th at
// start + i / rate) whatever the answers, so a slow site does not slow the offered load, and a
// request's latency is counted from when it was due, not from when it went out (wrk2's
// correction for coordinated omission). Kept cheap, since it shares the cores with the site: the
// request bodies are built beforehand, the answers are drained without being read.
import http from 'node:http';

/** One request as it goes on the wire. */
export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: http.OutgoingHttpHeaders;
  body?: Buffer;
}

export interface Stream {
  name: string;
  perSecond: number;
  /** The stream's i-th request, from 0. */
  request(i: number): WireRequest;
}

export interface StreamResult {
  name: string;
  sent: number;
  /** Milliseconds from when each answered request was due to its answer's last byte. */
  latencies: number[];
  /** Answers by HTTP status. */
  statuses: Map<number, number>;
  /** No answer within the timeout. */
  timeouts: number;
  /** The connection failed or closed before an answer. */
  errors: number;
  /** How late the generator itself sent each request, in milliseconds. */
  sendLags: number[];
}

/**
 * JSON signups through the API, `perSecond` for `seconds`, each with an address never used before
 * (`<prefix>-<i>@example.org`); the bodies are built beforehand.
 */
export function signupStream(prefix: string, perSecond: number, seconds: number): Stream {
  const bodies = Array.from({ length: Math.ceil(perSecond * seconds) + 1 }, (_, i) =>
    Buffer.from(JSON.stringify({ email: `${prefix}-${i}@example.org`, description: 'bench' })),
  );
  return {
    name: 'signups',
    perSecond,
    request: (i) => ({
      method: 'POST',
      path: '/api/subscriptions',
      headers: { 'content-type': 'application/json', 'content-length': bodies[i].length },
      body: bodies[i],
    }),
  };
}

const emptyResult = (name: string): StreamResult => ({
  name,
  sent: 0,
  latencies: [],
  statuses: new Map(),
  timeouts: 0,
  errors: 0,
  sendLags: [],
});

/** A request with no answer by then counts as a timeout (queueing in the agent included). */
export const TIMEOUT_MS = 5_000;
/** How often the schedule is checked; each check sends every request that has come due. */
const TICK_MS = 2;
/**
 * Connections per stream: more than a healthy site ever needs at these rates; past them, while the
 * site stalls, requests wait in the agent, still timed from when they were due.
 */
const MAX_SOCKETS = 128;

/**
 * Runs the streams against `origin` for `seconds`, each on its own keep-alive connections, and
 * resolves once every request sent has been answered or has timed out.
 */
export function runOpenLoop(
  origin: string,
  streams: Stream[],
  seconds: number,
): Promise<StreamResult[]> {
  const { hostname, port } = new URL(origin);
  const runs = streams.map((stream) => ({
    stream,
    total: Math.floor(stream.perSecond * seconds),
    agent: new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
    result: emptyResult(stream.name),
  }));
  let pending = 0;
  const start = performance.now();

  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (pending > 0 || runs.some((run) => run.result.sent < run.total)) return;
      clearInterval(timer);
      for (const run of runs) run.agent.destroy();
      resolve(runs.map((run) => run.result));
    };

    const send = (run: (typeof runs)[number], due: number) => {
      const { result } = run;
      const wire = run.stream.request(result.sent);
      result.sent++;
      pending++;
      result.sendLags.push(performance.now() - due);
      let settled = false;
      const settle = (outcome: number | 'timeout' | 'error') => {
        if (settled) return;
        settled = true;
        pending--;
        if (outcome === 'timeout') result.timeouts++;
        else if (outcome === 'error') result.errors++;
        else {
          result.latencies.push(performance.now() - due);
          result.statuses.set(outcome, (result.statuses.get(outcome) ?? 0) + 1);
        }
        finishIfDone();
      };
      const signal = AbortSignal.timeout(TIMEOUT_MS);
      const req = http.request(
        {
          hostname,
          port,
          method: wire.method,
          path: wire.path,
          headers: wire.headers,
          agent: run.agent,
          signal,
        },
        (res) => {
          res.on('end', () => settle(res.statusCode ?? 0));
          res.on('error', () => settle(signal.aborted ? 'timeout' : 'error'));
          // An answer cut short may end with neither 'end' nor 'error'; 'close' always comes.
          res.on('close', () => settle(signal.aborted ? 'timeout' : 'error'));
          res.resume();
        },
      );
      req.on('error', () => settle(signal.aborted ? 'timeout' : 'error'));
      req.end(wire.body);
    };

    const timer = setInterval(() => {
      const elapsed = performance.now() - start;
      for (const run of runs) {
        const due = Math.min(run.total, Math.floor((elapsed * run.stream.perSecond) / 1000) + 1);
        while (run.result.sent < due) {
          send(run, start + (run.result.sent * 1000) / run.stream.perSecond);
        }
      }
      finishIfDone();
    }, TICK_MS);
  });
}
