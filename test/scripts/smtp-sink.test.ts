// scripts/smtp-sink.ts as the mail benchmark runs it: its own process, started with
// `node --import tsx`, the port read from its first line, the counts read back as JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { SmtpStats } from '../../scripts/lib/launch/smtp';
import { until } from '../support/wait';

const SINK = path.resolve(__dirname, '../../scripts/smtp-sink.ts');
/** A hang guard: tsx compiles the sink before it listens, which a loaded machine makes slow. */
const SINK_START_MS = 45_000;

function startSink(...args: string[]): {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', SINK, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
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
      await until('the sink listens', () => lines.length > 0, SINK_START_MS);
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

  it('with --each, prints a line per message received (recipients, Message-ID, time) before the counts that include it', async () => {
    const { child, lines, exited } = startSink('--each', '0');
    try {
      await until('the sink listens', () => lines.length > 0, SINK_START_MS);
      const port = Number(/^listening (\d+)$/.exec(lines[0])![1]);
      const sender = nodemailer.createTransport({ host: '127.0.0.1', port, pool: true });
      const mail = { from: 'hello@orgnote.test', subject: 'Confirm', text: 'link' };
      const before = Date.now();
      await sender.sendMail({ ...mail, to: 'ada@example.test', messageId: '<a@orgnote.test>' });
      await sender.sendMail({ ...mail, to: 'grace@example.test', messageId: '<g@orgnote.test>' });
      const after = Date.now();
      sender.close();

      await until('both messages were printed', () => lines.length >= 3);
      const printed = lines.slice(1, 3).map((line) => {
        expect(line).toMatch(/^message \{/);
        return JSON.parse(line.slice('message '.length)) as {
          to: string[];
          messageId: string;
          at: number;
        };
      });
      expect(printed.map(({ to, messageId }) => ({ to, messageId }))).toEqual([
        { to: ['ada@example.test'], messageId: '<a@orgnote.test>' },
        { to: ['grace@example.test'], messageId: '<g@orgnote.test>' },
      ]);
      for (const { at } of printed) {
        expect(at).toBeGreaterThanOrEqual(before);
        // Seen within the sink's poll of the 250 that resolved sendMail (plus a loaded machine's
        // slack).
        expect(at).toBeLessThanOrEqual(after + 1_000);
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(lines.slice(3)).toEqual([
        JSON.stringify({ received: 2, uniqueMessageIds: 2, duplicates: 0, recipients: 2 }),
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stops when the process that started it goes away (its stdin pipe ends)', async () => {
    const { child, lines, exited } = startSink();
    try {
      await until('the sink listens', () => lines.length > 0, SINK_START_MS);
      child.stdin!.end();
      expect(await exited).toBe(0);
      expect(JSON.parse(lines[1])).toEqual({
        received: 0,
        uniqueMessageIds: 0,
        duplicates: 0,
        recipients: 0,
      });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
