// GET /healthz for load balancers and the Docker HEALTHCHECK, with the outbox depth so an
// operator sees signups waiting for the backend.
import type { Request, Response } from 'express';
import type { Outbox } from './store/types';

export function healthCheck(outbox: Pick<Outbox, 'depth'>) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok', outbox: await outbox.depth() });
  };
}
