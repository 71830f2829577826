// The bits of HTTP the API needs, on plain node:http objects. The API answers without Express
// (docs/decisions/0009-api-without-express.md); the native form, inside Express, shares them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import typeis from 'type-is';

/** A request whose body has been read: multipart fields (multer), raw bytes, or nothing. */
export type ApiRequest = IncomingMessage & { body?: unknown };

/** Connect-style middleware, usable with and without Express (multer, body-parser, the rate limiter). */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** Express's req.is(type), for any request: false when the body is of another type or absent. */
export function hasType(req: IncomingMessage, type: string): boolean {
  return Boolean(typeis(req, [type]));
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
