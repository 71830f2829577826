// The machine's limit for answering what the site answers: bare node:http replaying, from memory,
// the status, headers and bytes the site gave for each path (record.ts wrote them to the file
// named by argv[2]). Any other path is a 404. Prints "listening PORT" once it listens.
import fs from 'node:fs';
import http from 'node:http';
import type { RecordedAnswers } from './record';

const recorded = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as RecordedAnswers;
const answers = new Map(
  Object.entries(recorded).map(([path, { status, headers, body }]) => [
    path,
    { status, headers, body: Buffer.from(body, 'base64') },
  ]),
);

const server = http.createServer((req, res) => {
  const answer = answers.get(req.url!);
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
