// What the site answers, byte for byte, for the references it is set against: the bare node:http
// server (reference.ts) replays the answers, nginx serves the page. Asked as the load generator
// asks (Accept-Encoding: gzip), with http.get: fetch would undo the compression.
import fs from 'node:fs';
import http from 'node:http';

export interface Answer {
  status: number;
  /** Name, value, name, value…, as received (res.writeHead takes this list as it is). */
  headers: string[];
  body: Buffer;
}

/** The file reference.ts loads: each path's answer, the body in base64. */
export type RecordedAnswers = Record<string, Omit<Answer, 'body'> & { body: string }>;

/** The value of header `name` in an answer, if it has one. */
export function headerOf({ headers }: Answer, name: string): string | undefined {
  const i = headers.findIndex((header, i) => i % 2 === 0 && header.toLowerCase() === name);
  return i < 0 ? undefined : headers[i + 1];
}

/** Headers of the connection, not of the answer: each server sends its own. */
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export function getAnswer(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const kept: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (!HOP_HEADERS.has(res.rawHeaders[i].toLowerCase()))
              kept.push(res.rawHeaders[i], res.rawHeaders[i + 1]);
          resolve({ status: res.statusCode!, headers: kept, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

/**
 * Asks `origin` for each path with Accept-Encoding: gzip, writes the answers to `file` and
 * returns them.
 */
export async function recordAnswers(
  origin: string,
  paths: string[],
  file: string,
): Promise<Record<string, Answer>> {
  const answers: Record<string, Answer> = {};
  const recorded: RecordedAnswers = {};
  for (const path of paths) {
    const answer = await getAnswer(`${origin}${path}`, { 'Accept-Encoding': 'gzip' });
    answers[path] = answer;
    recorded[path] = { ...answer, body: answer.body.toString('base64') };
  }
  fs.writeFileSync(file, JSON.stringify(recorded));
  return answers;
}
