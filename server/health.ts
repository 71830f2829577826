// The probes. GET /healthz is liveness, for the Docker HEALTHCHECK: the process answers (with
// the outbox depth, so an operator sees signups waiting for the backend, and the version it
// runs). GET /readyz is readiness, for the reverse proxy or orchestrator: 200 only while the
// store answers with its schema current, 503 otherwise, so a replica whose database is
// unreachable is taken out of rotation instead of answering signups with 503s.
import type { Request, Response } from 'express';
import type { Outbox } from './store/outbox';
import type { Store } from './store/types';
import { currentBuild } from './version';

export function healthCheck(outbox: Pick<Outbox, 'depth'>) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    // Liveness must not depend on the database: a count that fails or is slow (PostgreSQL silent)
    // is reported as null after a moment, never a probe that times out and restarts the process.
    const late = new Promise<null>((resolve) => setTimeout(resolve, 250, null).unref());
    const outboxDepth = await Promise.race([outbox.depth().catch(() => null), late]);
    res.json({ status: 'ok', outbox: outboxDepth, version: currentBuild().version });
  };
}

/**
 * Readiness itself, for /readyz and the store_ready gauge: the store answered within `timeoutMs`.
 */
export async function isReady(store: Pick<Store, 'ping'>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the store did not answer in time')), timeoutMs);
  });
  try {
    await Promise.race([store.ping(), late]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function readinessCheck(store: Pick<Store, 'ping'>, timeoutMs: number) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    if (await isReady(store, timeoutMs)) res.json({ status: 'ready' });
    else res.status(503).json({ status: 'unavailable' });
  };
}
