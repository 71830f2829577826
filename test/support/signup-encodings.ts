// The three encodings POST /api/subscriptions takes, each sending the same fields, for tests that
// check a signup reads the same whichever a client chose; and the plain form's native POST.
import request from 'supertest';
import type { createApp } from '../../server/app';

type App = ReturnType<typeof createApp>;

export const encodings: Record<string, (app: App, fields: Record<string, string>) => request.Test> =
  {
    multipart: (app, fields) =>
      Object.entries(fields).reduce(
        (req, [name, value]) => req.field(name, value),
        request(app).post('/api/subscriptions'),
      ),
    urlencoded: (app, fields) =>
      request(app)
        .post('/api/subscriptions')
        .type('form')
        .send(new URLSearchParams(fields).toString()),
    JSON: (app, fields) => request(app).post('/api/subscriptions').send(fields),
  };

/** The plain form's native POST to /?index, its fields (the hidden ones too) as multipart. */
export const formPost = (app: App, fields: Record<string, string>) =>
  Object.entries(fields).reduce(
    (req, [name, value]) => req.field(name, value),
    request(app).post('/?index'),
  );
