// A real SMTP server on 127.0.0.1 (smtp-server), standing in for the mail relay the site sends
// through: in a test's process, in a process of its own for the benchmarks (scripts/smtp-sink.ts),
// and one per replica in the chaos run. It records what it accepted, answers 451 or 550 when told
// to, and can go down and come back on the same port, so an SMTP_URL stays valid across an outage.
// Plain SMTP, no TLS: STARTTLS is not offered, so nodemailer never tries it (and smtp-server does
// not warn about its built-in certificate on stderr).
// smtp-server waits 100 ms before its greeting on every new connection (its early-talker check,
// not configurable), so a test that sends many messages should use a pooled transport.
import net from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import {
  SMTPServer,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import { releasePort, reservePort } from './ports';

export interface Envelope {
  from: string;
  to: string[];
}

/**
 * What the server keeps of a message with `parse: false`: enough to count it and spot duplicates.
 */
export interface CountedMail {
  envelope: Envelope;
  /**
   * The Message-ID header as sent, angle brackets included; undefined when the message has none.
   */
  messageId: string | undefined;
}

export interface ReceivedMail extends CountedMail {
  raw: Buffer;
  parsed: ParsedMail;
}

/**
 * A refusal the server answered because of its mode: one per RCPT TO, or one per message at DATA.
 */
export interface RejectedMail {
  envelope: Envelope;
  responseCode: number;
  at: RejectAt;
}

export type SmtpMode = 'accept' | 'tempfail' | 'permfail';
/**
 * Where a refusal is answered. RCPT is where relays usually refuse (greylisting, unknown mailbox,
 * quota): nodemailer then reports EENVELOPE. DATA is the answer after the whole message was sent
 * (content filters, a queue that fails to write): nodemailer reports EMESSAGE.
 */
export type RejectAt = 'RCPT' | 'DATA';

export interface SmtpStats {
  received: number;
  uniqueMessageIds: number;
  /** Messages whose Message-ID had already been received: a message delivered twice. */
  duplicates: number;
  /** Distinct envelope recipients. */
  recipients: number;
}

export interface SmtpTestServer<M extends CountedMail = ReceivedMail> {
  port: number;
  /** smtp://127.0.0.1:port, with user:pass when the server requires auth. */
  url: string;
  /** Accepted messages, in the order the server answered 250 to them. */
  received: M[];
  rejected: RejectedMail[];
  /**
   * How the server answers from the next transaction on: accept, 451 (temporary) or 550
   * (permanent), at RCPT TO by default. Stays until changed.
   */
  mode(mode: SmtpMode, at?: RejectAt): void;
  /** Answers each message this long after it is in, as a slow relay would (0: at once). */
  replyAfter(ms: number): void;
  /**
   * Stops listening (connections are refused) and drops open connections without a goodbye, as a
   * crashed relay would.
   */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /**
   * Resolves with everything received once at least `count` messages are in; rejects after
   * `timeoutMs` (30 s: only a message that never comes reaches it).
   */
  waitFor(count: number, timeoutMs?: number): Promise<M[]>;
  stats(): SmtpStats;
  close(): Promise<void>;
}

export interface SmtpServerOptions<M extends CountedMail = ReceivedMail> {
  /**
   * Require this login (PLAIN or LOGIN). Without it, AUTH is optional and any login is accepted.
   */
  auth?: { user: string; pass: string };
  /**
   * 0 asks the kernel for a port; the default is a free port below its ephemeral range (see
   * listenBelowEphemeral).
   */
  port?: number;
  /**
   * false: keep only the envelope and Message-ID of each message, not its bytes (for benchmarks).
   */
  parse?: boolean;
  /** Told of each message once it is recorded, before the server answers 250. */
  onMessage?(mail: M): void;
}

/** How long waitFor waits by default: only a message that never comes reaches it. */
const WAIT_DEADLINE_MS = 30_000;

const REPLY: Record<Exclude<SmtpMode, 'accept'>, { code: number; text: string }> = {
  tempfail: { code: 451, text: 'Temporary local problem, try again later' },
  permfail: { code: 550, text: 'Mailbox unavailable' },
};

export function startSmtpServer(
  options?: SmtpServerOptions<ReceivedMail> & { parse?: true },
): Promise<SmtpTestServer<ReceivedMail>>;
export function startSmtpServer(
  options: SmtpServerOptions<CountedMail> & { parse: false },
): Promise<SmtpTestServer<CountedMail>>;
export async function startSmtpServer(
  options: SmtpServerOptions<CountedMail> = {},
): Promise<SmtpTestServer<CountedMail>> {
  const { auth, parse = true } = options;
  const received: CountedMail[] = [];
  /** Each waitFor still waiting, asked again after every message recorded. */
  const waiting = new Set<() => void>();
  const rejected: RejectedMail[] = [];
  let current: { mode: SmtpMode; at: RejectAt } = { mode: 'accept', at: 'RCPT' };
  let replyDelayMs = 0;
  /** Counts stop()s, so a message still being read when the server went down is not kept. */
  let generation = 0;

  const envelopeOf = (session: SMTPServerSession, extraRecipient?: string): Envelope => ({
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: [
      ...session.envelope.rcptTo.map((rcpt) => rcpt.address),
      ...(extraRecipient ? [extraRecipient] : []),
    ],
  });

  /** The refusal the current mode gives at this step, recorded; undefined to go on. */
  const refusal = (at: RejectAt, envelope: Envelope): Error | undefined => {
    if (current.mode === 'accept' || current.at !== at) return undefined;
    const { code, text } = REPLY[current.mode];
    rejected.push({ envelope, responseCode: code, at });
    return Object.assign(new Error(text), { responseCode: code });
  };

  const smtpOptions: SMTPServerOptions = {
    logger: false,
    // No TLS on loopback; see the top comment.
    disabledCommands: ['STARTTLS'],
    // smtp-server refuses AUTH on a connection without TLS unless told otherwise.
    allowInsecureAuth: true,
    authOptional: !auth,
    // The reverse lookup of 127.0.0.1 would cost a DNS query per connection.
    disableReverseLookup: true,
    onAuth(login, _session, callback) {
      if (auth && (login.username !== auth.user || login.password !== auth.pass)) {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        return;
      }
      callback(null, { user: login.username });
    },
    onRcptTo(address, session, callback) {
      callback(refusal('RCPT', envelopeOf(session, address.address)));
    },
    onData(stream, session, callback) {
      const envelope = envelopeOf(session);
      // smtp-server reads the rest of the message itself and answers once it is in.
      const refused = refusal('DATA', envelope);
      if (refused) return callback(refused);
      const startedIn = generation;
      const record = parse
        ? readAndParse(stream)
        : readMessageId(stream).then((messageId) => ({ messageId }));
      const delay = replyDelayMs;
      record.then(
        async (mail) => {
          if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
          // A relay that went down before it answered 250 never took the message: the client
          // sends it again, and keeping this copy would count as a duplicate delivery.
          if (generation !== startedIn) return callback(new Error('Server went down'));
          // Answered only once recorded: when sendMail resolves, the message is in `received`.
          const recorded = { envelope, ...mail };
          received.push(recorded);
          for (const check of [...waiting]) check();
          options.onMessage?.(recorded);
          callback();
        },
        (err: Error) => callback(Object.assign(err, { responseCode: 451 })),
      );
    },
  };

  let running: Listening | undefined =
    options.port === undefined
      ? await listenBelowEphemeral(smtpOptions)
      : await listen(smtpOptions, options.port);
  const actualPort = running.port;

  const stop = async () => {
    const stopping = running;
    running = undefined;
    generation += 1;
    if (stopping) await stopping.stop();
  };

  const login = auth && `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@`;
  return {
    port: actualPort,
    url: `smtp://${login || ''}127.0.0.1:${actualPort}`,
    received,
    rejected,
    mode(mode, at = 'RCPT') {
      current = { mode, at };
    },
    replyAfter(ms) {
      replyDelayMs = ms;
    },
    stop,
    async start() {
      running ??= await listen(smtpOptions, actualPort);
    },
    waitFor(count, timeoutMs = WAIT_DEADLINE_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          done();
          resolve(received.slice());
        };
        const timer = setTimeout(() => {
          done();
          const what = `${count} messages arrived (${received.length} so far)`;
          reject(new Error(`timed out after ${timeoutMs} ms waiting until ${what}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiting.delete(check);
        };
        waiting.add(check);
        check();
      });
    },
    stats: () => statsOf(received),
    async close() {
      await stop();
      if (options.port === undefined) releasePort(actualPort);
    },
  };
}

interface Listening {
  port: number;
  stop(): Promise<void>;
}

/**
 * A new SMTPServer on 127.0.0.1:port. Its sockets are tracked so stop() can destroy them:
 * smtp-server's close() waits up to 30 s for open connections, and a pooled client would keep
 * sending over them, never noticing that the server went down.
 */
async function listen(options: SMTPServerOptions, port: number): Promise<Listening> {
  const server = new SMTPServer(options);
  const sockets = new Set<net.Socket>();
  server.server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let listening = false;
  await new Promise<void>((resolve, reject) => {
    // The same 'error' event carries a failed listen and, later, a client's dropped connection
    // (ECONNRESET and the like), which is nothing the fixture has to act on.
    server.on('error', (err) => {
      if (!listening) reject(err);
    });
    server.listen(port, '127.0.0.1', () => {
      listening = true;
      resolve();
    });
  });
  return {
    port: (server.server.address() as net.AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function readAndParse(stream: SMTPServerDataStream): Promise<Omit<ReceivedMail, 'envelope'>> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const parsed = await simpleParser(raw);
  return { raw, parsed, messageId: headerValue(raw, 'message-id') };
}

/** Reads the message to its end but keeps only its header block, for the Message-ID. */
async function readMessageId(stream: SMTPServerDataStream): Promise<string | undefined> {
  let head = Buffer.alloc(0);
  let headEnd = -1;
  for await (const chunk of stream) {
    if (headEnd >= 0) continue;
    head = Buffer.concat([head, chunk as Buffer]);
    headEnd = head.indexOf('\r\n\r\n');
  }
  return headerValue(head, 'message-id');
}

/**
 * The value of the first header called `name` in a message's header block (folded lines joined).
 */
export function headerValue(message: Buffer, name: string): string | undefined {
  const end = message.indexOf('\r\n\r\n');
  const head = message
    .subarray(0, end >= 0 ? end : message.length)
    .toString('latin1')
    .replace(/\r\n[ \t]+/g, ' ');
  const line = head
    .split('\r\n')
    .find((l) => l.slice(0, name.length + 1).toLowerCase() === `${name}:`);
  return line?.slice(name.length + 1).trim();
}

export function statsOf(received: readonly CountedMail[]): SmtpStats {
  const ids = new Set<string>();
  const recipients = new Set<string>();
  let duplicates = 0;
  for (const mail of received) {
    for (const to of mail.envelope.to) recipients.add(to);
    if (mail.messageId === undefined) continue;
    if (ids.has(mail.messageId)) duplicates += 1;
    else ids.add(mail.messageId);
  }
  return {
    received: received.length,
    uniqueMessageIds: ids.size,
    duplicates,
    recipients: recipients.size,
  };
}

/**
 * Listens on a random free port below the kernel's ephemeral range (32768-60999 on Linux) and
 * apart from test/support/backend.ts's closedPort() (20000-29999). While the server is stopped, a
 * port from the ephemeral range could be handed out as the source port of a client's own
 * connection to it (a TCP self-connect, which hangs instead of being refused), or to a socket
 * that start() then collides with. The port is reserved (ports.ts) until close(), so no other run
 * takes it while the server is stopped.
 */
async function listenBelowEphemeral(options: SMTPServerOptions): Promise<Listening> {
  for (;;) {
    const port = reservePort(10_000, 19_999);
    try {
      return await listen(options, port);
    } catch (err) {
      releasePort(port);
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
