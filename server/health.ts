// GET /healthz for load balancers and the Docker HEALTHCHECK.
import type { Request, Response } from 'express';

export function healthCheck(_req: Request, res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json({ status: 'ok' });
}
