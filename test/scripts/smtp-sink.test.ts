// scripts/smtp-sink.ts as the mail benchmark runs it: its own process, started with
// `node --import tsx`, the port read from its first line, the counts read back as JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { SmtpStats } from '../support/smtp';
import { until } from '../support/wait';

const SINK = path.resolve(__dirname, '../../scripts/smtp-sink.ts');

function startSink(): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', SINK], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

/** The next stats line after the `seen` lines already read. */
async function statsAfter(lines: string[], seen: number): Promise<SmtpStats> {
  await until('the sink printed its counts', () => lines.length > seen);
  return JSON.parse(lines[seen]) as SmtpStats;
}

describe('smtp-sink', () => {
  it('counts what it receives, duplicates by Message-ID, and reports on a stdin line, SIGUSR2 and SIGTERM', async () => {
    const { child, lines, exited } = startSink();
    try {
      await until('the sink listens', () => lines.length > 0, 10_000);
      const port = Number(/^listening (\d+)$/.exec(lines[0])![1]);
      const sender = nodemailer.createTransport({ host: '127.0.0.1', port, pool: true });
      const mail = { from: 'hello@orgnote.test', subject: 'Invitation', text: 'K-1' };
      await sender.sendMail({ ...mail, to: 'ada@example.test', messageId: '<a@orgnote.test>' });
      await sender.sendMail({ ...mail, to: 'ada@example.test', messageId: '<a@orgnote.test>' });
      await sender.sendMail({ ...mail, to: 'grace@example.test' });
      sender.close();

      const expected = { received: 3, uniqueMessageIds: 2, duplicates: 1, recipients: 2 };
      child.stdin!.write('\n');
      expect(await statsAfter(lines, 1)).toEqual(expected);
      child.kill('SIGUSR2');
      expect(await statsAfter(lines, 2)).toEqual(expected);
      child.kill('SIGTERM');
      expect(await statsAfter(lines, 3)).toEqual(expected);
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stops when the process that started it goes away (its stdin pipe ends)', async () => {
    const { child, lines, exited } = startSink();
    try {
      await until('the sink listens', () => lines.length > 0, 10_000);
      child.stdin!.end();
      expect(await exited).toBe(0);
      expect(JSON.parse(lines[1])).toEqual({ received: 0, uniqueMessageIds: 0, duplicates: 0, recipients: 0 });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
