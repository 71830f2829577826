// The mail server of the chaos run: one SMTP listener (scripts/lib/launch/smtp.ts) per replica,
// each replica's SMTP_URL naming its own port, so every accepted message is known by the replica
// that sent it. A message is recorded, with the time, once its whole body is in and before the
// 250 is answered: from then on it counts as accepted, whatever becomes of the sender.
import { headerValue, startSmtpServer, type ReceivedMail } from '../lib/launch/smtp';

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
  const take = (replica: number, { raw, parsed }: ReceivedMail) => {
    const unsubscribe = headerValue(raw, 'list-unsubscribe') ?? '';
    const mail: AcceptedMail = {
      replica,
      at: Date.now(),
      messageId: headerValue(raw, 'message-id') ?? '',
      to: parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '',
      subject: parsed.subject ?? '',
      leaveToken: tokenAfter(unsubscribe, '/leave?token=') ?? '',
      confirmToken: tokenAfter(parsed.text ?? '', '/confirm?token='),
    };
    accepted.push(mail);
    for (const listener of listeners) listener(mail);
  };
  // No login on loopback; a sender killed mid-message leaves nothing recorded (451).
  const servers = await Promise.all(
    ports.map((port, replica) =>
      startSmtpServer({ port, onMessage: (mail) => take(replica, mail) }),
    ),
  );
  return {
    accepted,
    onMail: (listener) => void listeners.push(listener),
    close: () => Promise.all(servers.map((server) => server.close())).then(() => undefined),
  };
}

/** The token a link carries after `marker`, decoded. */
function tokenAfter(text: string, marker: string): string | undefined {
  const start = text.indexOf(marker);
  if (start < 0) return undefined;
  const encoded = /^[^\s>&]+/.exec(text.slice(start + marker.length))?.[0];
  return encoded === undefined ? undefined : decodeURIComponent(encoded);
}
