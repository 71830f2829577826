// npm run bench's load generator (scripts/bench/lib/load.ts), wrk and the autocannon fallback
// alike: what reaches a server (the paths in turn, the headers, a POST's exact bytes) and what it
// counts, against a node:http server in this process that records every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GENERATOR, load, type Generator } from '../../scripts/bench/lib/load';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let seen: Seen[] = [];
let origin: string;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: Buffer.concat(chunks),
    });
    res.writeHead(req.url === '/fail' ? 500 : 200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  seen = [];
});

// wrk only where it is installed (.ci/run installs it); the fallback everywhere.
const generators: Generator[] = GENERATOR === 'wrk' ? ['wrk', 'autocannon'] : ['autocannon'];

describe.each(generators)('load() with %s', (generator) => {
  const connections = 2;

  it('asks for each path in turn, with Accept-Encoding: gzip, and counts the answers', async () => {
    const result = await load({
      url: origin,
      paths: ['/a', '/b'],
      seconds: 1,
      connections,
      generator,
    });

    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.requests).toBeGreaterThan(10);
    expect(result.rps).toBeGreaterThan(0);
    // The server saw every request counted, and those still in flight when the window closed.
    expect(seen.length).toBeGreaterThanOrEqual(result.requests);
    const asked = (path: string) => seen.filter((request) => request.url === path).length;
    expect(asked('/a') + asked('/b')).toBe(seen.length);
    expect(Math.abs(asked('/a') - asked('/b'))).toBeLessThanOrEqual(connections);
    expect(seen.every((request) => request.headers['accept-encoding'] === 'gzip')).toBe(true);
  });

  it('sends a POST with its content type and its exact bytes', async () => {
    const body = Buffer.from([0x2d, 0x2d, 0x78, 0x0d, 0x0a, 0x00, 0xff, 0xc3, 0xa9, 0x0a]);
    const contentType = 'multipart/form-data; boundary=x';
    const result = await load({
      url: `${origin}/post`,
      method: 'POST',
      body,
      headers: { 'Content-Type': contentType },
      seconds: 1,
      connections,
      generator,
    });

    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    expect(seen.length).toBeGreaterThanOrEqual(result.requests);
    const requests = seen.map(({ method, url, headers, body }) => ({
      method,
      url,
      contentType: headers['content-type'],
      acceptEncoding: headers['accept-encoding'],
      body: body.toString('hex'),
    }));
    const expected = { method: 'POST', url: '/post', contentType, body: body.toString('hex') };
    expect(new Set(requests.map((request) => JSON.stringify(request)))).toEqual(
      new Set([JSON.stringify(expected)]),
    );
  });

  it('counts answers of status 500 as non-2xx', async () => {
    const result = await load({ url: `${origin}/fail`, seconds: 1, connections, generator });

    expect(result.requests).toBeGreaterThan(0);
    expect(result).toMatchObject({ errors: 0, non2xx: result.requests });
  });
});
