// GET /healthz for load balancers and the Docker HEALTHCHECK, with the outbox depth so an
// operator sees signups waiting for the backend.
import type { Request, Response } from 'express';
import type { Outbox } from './store/outbox';

export function healthCheck(outbox: Pick<Outbox, 'depth'>) {
  return (_req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok', outbox: outbox.depth() });
  };
}
