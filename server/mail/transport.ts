// Where mail goes. With SMTP_URL: a pooled SMTP connection (nodemailer; STARTTLS required on
// smtp:// except to loopback, TLS from the start on smtps://). Without it, the embedded default:
// each message written as an RFC 5322 .eml file under DATA_DIR/mail/, named by its queue id, which
// an operator can open in any mail program and forward. Writing is atomic and durable (a temporary
// file of the same id, fsync, rename), so a retry after a crash replaces the file rather than
// adding a second copy, and a message recorded as sent has its file.
// With DKIM settings, both sign every message (nodemailer's own DKIM signer, rsa-sha256, relaxed
// canonicalization), so an .eml an operator forwards carries the signature too.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { withoutCredentials, type Config, type DkimSigning } from '../config';
import type { OutgoingMail } from '../store/mail-queue';

/** Connections kept open to the mail server; sends beyond this wait for a free one. */
export const SMTP_POOL_SIZE = 5;

export interface Mailer {
  send(id: number, mail: OutgoingMail): Promise<void>;
  /** Where messages go, fit to print: the SMTP server without its credentials, or the folder. */
  readonly where: string;
  /**
   * Idle connections close at once and sends waiting for one fail; `force` ends those delivering
   * too.
   */
  close(force?: boolean): void;
  /**
   * Takes back the copy of a message sent as its address was erased, where a copy can be taken
   * back: the .eml file. Mail an SMTP server took is gone.
   */
  withdraw?(id: number): Promise<void>;
}

export function mailFolder(dataDir: string): string {
  return path.join(dataDir, 'mail');
}

export function emlFile(dataDir: string, id: number): string {
  return path.join(mailFolder(dataDir), `${id}.eml`);
}

/** Its temporary name while being written; one writer per id at a time (the queue's lease). */
export function emlTemporaryFile(dataDir: string, id: number): string {
  return `${emlFile(dataDir, id)}.tmp`;
}

/**
 * The header fields a signature covers when present: those RFC 4871 (section 5.5) lists, as
 * nodemailer signs by default, and List-Unsubscribe-Post, which RFC 8058 (section 4) wants signed
 * with List-Unsubscribe, so nobody can add a one-click unsubscribe to our mail.
 */
const SIGNED_FIELDS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-ID',
  'Content-Description',
  'Resent-Date',
  'Resent-From',
  'Resent-Sender',
  'Resent-To',
  'Resent-Cc',
  'Resent-Message-ID',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
].join(':');

/** nodemailer's `dkim` option: unset without DKIM settings, so nothing is signed. */
const signing = (dkim: DkimSigning | undefined) =>
  dkim && { ...dkim, headerFieldNames: SIGNED_FIELDS };

/**
 * The message as nodemailer composes it: multipart/alternative with the text part first. Extra
 * headers (List-Unsubscribe) are written as given, and nodemailer's default list of signed
 * fields covers the List-* ones.
 */
const composed = (mail: OutgoingMail) => ({ ...mail, date: new Date(mail.date) });

/** SMTP_URL's own query parameter; nodemailer would take it for its `tls` socket options. */
const TLS_PARAMETER = 'tls';

/** Loopback names: mail to them never crosses a network, so TLS would protect nothing. */
function isLoopback(hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/**
 * Whether an smtp:// connection must upgrade with STARTTLS before it logs in or sends. Without it
 * anyone on the path can strip the server's STARTTLS offer and read the password and the keys.
 * `?tls=optional` lets an operator accept a server without TLS; `?tls=required` asks for TLS even
 * on loopback (a local relay that offers it). smtps:// is TLS from its first byte.
 */
function requiresStartTls(url: URL): boolean {
  if (url.protocol !== 'smtp:') return false;
  const tls = url.searchParams.get(TLS_PARAMETER);
  if (tls === 'optional') return false;
  return tls === 'required' || !isLoopback(url.hostname);
}

/**
 * nodemailer's options for SMTP_URL. A stuck server must not hold a message for nodemailer's
 * default minutes: every wait of a send (connecting, the greeting, each reply) ends within
 * SMTP_TIMEOUT_MS. That bounds each wait, not the send, so the sender renews its claim while the
 * send goes on (mail/send.ts): a message goes to another sender only once its sender has stopped
 * (died, or given up on a stuck send), one lease later (server/store/leases.ts).
 */
export function smtpTransportOptions(
  smtpUrl: string,
  timeoutMs: number,
  dkim: DkimSigning | undefined,
) {
  const url = new URL(smtpUrl);
  const requireTLS = requiresStartTls(url);
  url.searchParams.delete(TLS_PARAMETER);
  return {
    url: url.toString(),
    requireTLS,
    dkim: signing(dkim),
    pool: true,
    maxConnections: SMTP_POOL_SIZE,
    connectionTimeout: Math.min(10_000, timeoutMs),
    greetingTimeout: Math.min(10_000, timeoutMs),
    socketTimeout: timeoutMs,
  } as const;
}

/**
 * A failed STARTTLS, told so the operator knows which setting to fix and how; the codes stay, so
 * the queue still reads it as the server being unusable, not the message.
 */
function namingTheSetting(err: unknown, where: string): unknown {
  const smtp = (err ?? {}) as SmtpError;
  if (smtp.command !== 'STARTTLS') return err;
  const cause = err instanceof Error ? err.message : String(err);
  const explained = new Error(
    `SMTP_URL: STARTTLS with ${where} failed (${cause}). Mail to a server off loopback needs ` +
      'TLS: fix the server, use smtps://, or add ?tls=optional to SMTP_URL to send without it.',
  );
  return Object.assign(explained, {
    code: smtp.code,
    responseCode: smtp.responseCode,
    command: smtp.command,
  });
}

function smtpMailer(smtpUrl: string, timeoutMs: number, dkim: DkimSigning | undefined): Mailer {
  const transport = nodemailer.createTransport(smtpTransportOptions(smtpUrl, timeoutMs, dkim));
  const where = withoutCredentials(smtpUrl);
  return {
    where,
    async send(_id, mail) {
      await transport.sendMail(composed(mail)).catch((err: unknown) => {
        throw namingTheSetting(err, where);
      });
    },
    close: (force = false) => transport.close({ force }),
  };
}

function emlMailer(dataDir: string, dkim: DkimSigning | undefined): Mailer {
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    dkim: signing(dkim),
  });
  const folder = mailFolder(dataDir);
  return {
    where: folder,
    async send(id, mail) {
      const { message } = await transport.sendMail(composed(mail));
      await fs.mkdir(folder, { recursive: true, mode: 0o700 });
      const temporary = emlTemporaryFile(dataDir, id);
      const file = await fs.open(temporary, 'w', 0o600);
      try {
        await file.writeFile(message as Buffer);
        await file.sync();
      } finally {
        await file.close();
      }
      await fs.rename(temporary, emlFile(dataDir, id));
      await syncFolder(folder);
    },
    async withdraw(id) {
      await fs.rm(emlFile(dataDir, id), { force: true });
    },
    close: () => transport.close(),
  };
}

/** Makes a rename in `folder` survive a power loss (Linux: fsync of the directory). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The settings a mailer is made of. */
export type MailerConfig = Pick<Config, 'smtpUrl' | 'smtpTimeoutMs' | 'dataDir' | 'dkim'>;

export function createMailer(config: MailerConfig): Mailer {
  return config.smtpUrl
    ? smtpMailer(config.smtpUrl, config.smtpTimeoutMs, config.dkim)
    : emlMailer(config.dataDir, config.dkim);
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
}

/** A refusal of this message itself: of its recipient (RCPT TO) or of its content (after DATA). */
function refusesTheMessage({ code, command }: SmtpError): boolean {
  return code === 'EMESSAGE' || (code === 'EENVELOPE' && command === 'RCPT TO');
}

/** nodemailer itself could not make an envelope of the message (an address it cannot parse). */
function unsendable({ code, command }: SmtpError): boolean {
  return code === 'EENVELOPE' && command === 'API';
}

/**
 * True when the mail server refused this message for good: a 5xx to its recipient or its content
 * (503, a command out of sequence, is the client's fault and worth another try). A 5xx at login
 * (EAUTH) or to our sender (MAIL FROM: a missing login, a From the server will not relay) says
 * the setup is wrong, not the message, so that message is kept and retried once the operator has
 * fixed SMTP_URL or MAIL_FROM.
 */
export function isPermanentRefusal(err: unknown): boolean {
  const smtp = (err ?? {}) as SmtpError;
  const { responseCode } = smtp;
  if (unsendable(smtp)) return true;
  return (
    typeof responseCode === 'number' &&
    responseCode >= 500 &&
    responseCode !== 503 &&
    refusesTheMessage(smtp)
  );
}

/** A 5xx to RCPT TO: the server will never take mail for this address (undeliverable). */
export function refusesTheRecipient(err: unknown): boolean {
  const { code, command, responseCode } = (err ?? {}) as SmtpError;
  return (
    code === 'EENVELOPE' &&
    command === 'RCPT TO' &&
    typeof responseCode === 'number' &&
    responseCode >= 500 &&
    responseCode !== 503
  );
}

/**
 * True when the failure was the server's or the setup's, not this message's: the server could not
 * be reached, dropped or stalled the connection, or refused our login or our sender. The next
 * message would fare no better just now.
 */
export function isServerUnavailable(err: unknown): boolean {
  const smtp = (err ?? {}) as SmtpError;
  return !refusesTheMessage(smtp) && !unsendable(smtp);
}

/** Anything shaped like an address in a server's reply. */
const ADDRESS_IN_TEXT = /[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g;

/** An error as the queue records it and the log shows it: no address ever (servers quote them). */
export function describeMailError(err: unknown): string {
  const { code, responseCode } = (err ?? {}) as SmtpError;
  const message = err instanceof Error ? err.message : String(err);
  const prefix = [code, responseCode].filter((part) => part !== undefined).join(' ');
  return `${prefix ? `${prefix}: ` : ''}${message.replace(ADDRESS_IN_TEXT, '<address>')}`;
}
