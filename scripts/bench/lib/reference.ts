// The machine's limit for serving one page: the same HTML bytes from memory with bare node:http.
import fs from 'node:fs';
import http from 'node:http';

const html = fs.readFileSync(process.argv[2]);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': html.length });
  res.end(html);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
