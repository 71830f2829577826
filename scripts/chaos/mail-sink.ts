// The mail server of the chaos run: one SMTP listener per replica (each replica's SMTP_URL names
// its own port), so every accepted message is known by the replica that sent it. A message is
// recorded, with the time, once its whole body is in and before the 250 is answered: from then on
// it counts as accepted, whatever becomes of the sender.
import type net from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { headerValue } from '../../test/support/smtp';

export interface AcceptedMail {
  /** Index of the replica whose listener took it. */
  replica: number;
  at: number;
  messageId: string;
  to: string;
  subject: string;
  /** The token of its List-Unsubscribe link (every mail of the site has one). */
  leaveToken: string;
  /** The token of its confirmation link; only confirmation mails have one. */
  confirmToken?: string;
}

export interface MailSink {
  accepted: AcceptedMail[];
  /** Told of each message as it is accepted. */
  onMail(listener: (mail: AcceptedMail) => void): void;
  close(): Promise<void>;
}

export async function startMailSink(ports: number[]): Promise<MailSink> {
  const accepted: AcceptedMail[] = [];
  const listeners: ((mail: AcceptedMail) => void)[] = [];
  const servers = await Promise.all(
    ports.map((port, replica) =>
      listen(port, async (raw) => {
        const at = Date.now();
        const parsed = await simpleParser(raw);
        const unsubscribe = headerValue(raw, 'list-unsubscribe') ?? '';
        const mail: AcceptedMail = {
          replica,
          at,
          messageId: headerValue(raw, 'message-id') ?? '',
          to: parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '',
          subject: parsed.subject ?? '',
          leaveToken: tokenAfter(unsubscribe, '/leave?token=') ?? '',
          confirmToken: tokenAfter(parsed.text ?? '', '/confirm?token='),
        };
        accepted.push(mail);
        for (const listener of listeners) listener(mail);
      }),
    ),
  );
  return {
    accepted,
    onMail: (listener) => void listeners.push(listener),
    close: () => Promise.all(servers.map((stop) => stop())).then(() => undefined),
  };
}

/** The token a link carries after `marker`, decoded. */
function tokenAfter(text: string, marker: string): string | undefined {
  const start = text.indexOf(marker);
  if (start < 0) return undefined;
  const encoded = /^[^\s>&]+/.exec(text.slice(start + marker.length))?.[0];
  return encoded === undefined ? undefined : decodeURIComponent(encoded);
}

/**
 * A plain SMTP listener on 127.0.0.1:port (no TLS, no login: loopback) that hands each whole
 * message to `take` and answers 250 once it has; returns how to stop it. Its sockets are
 * destroyed on stop, since smtp-server's close waits for pooled connections to end.
 */
async function listen(port: number, take: (raw: Buffer) => Promise<void>) {
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    disableReverseLookup: true,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A sender killed mid-message: the stream ends in an error, and nothing was accepted.
      stream.on('error', () => {});
      stream.on('end', () => {
        take(Buffer.concat(chunks)).then(
          () => callback(),
          (err: Error) => callback(Object.assign(err, { responseCode: 451 })),
        );
      });
    },
  });
  const sockets = new Set<net.Socket>();
  server.server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // A sender's dropped connection (its replica was killed) is an 'error' here; nothing to do.
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
}
