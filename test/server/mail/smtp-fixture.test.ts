// The SMTP fixture (test/support/smtp.ts) against nodemailer, the client the site sends with: what
// it receives, and the errors nodemailer reports for each way the server can fail. The mail code
// tells a temporary failure from a permanent one by exactly these fields (code, responseCode,
// command, permanent), so they are pinned here: a nodemailer upgrade that changes them fails here
// first.
import { Readable } from 'node:stream';
import nodemailer, { type Transporter } from 'nodemailer';
import {
  startSmtpServer,
  type CountedMail,
  type SmtpServerOptions,
  type SmtpTestServer,
} from '../../../scripts/lib/launch/smtp';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function smtpServer(options?: SmtpServerOptions & { parse?: true }): Promise<SmtpTestServer> {
  const server = await startSmtpServer(options);
  opened.push(server);
  return server;
}

function transport(options: string | { port: number; pool?: boolean }): Transporter {
  const created =
    typeof options === 'string'
      ? nodemailer.createTransport(options)
      : nodemailer.createTransport({
          host: '127.0.0.1',
          port: options.port,
          secure: false,
          ignoreTLS: true,
          pool: options.pool,
        });
  opened.push(created);
  return created;
}

const invitation = {
  from: 'OrgNote <hello@orgnote.test>',
  to: 'ada@example.test',
  subject: 'Your OrgNote invitation',
  text: 'Your key: K-123',
  html: '<p>Your key: <b>K-123</b></p>',
};

/** What sendMail rejected with, or a failure if it resolved. */
async function failure(sending: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await sending;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('sendMail resolved, expected it to fail');
}

describe('the test SMTP server', () => {
  it('receives what nodemailer sends: envelope, raw bytes and the parsed message', async () => {
    const smtp = await smtpServer();
    const info = await transport({ port: smtp.port }).sendMail(invitation);

    // Recorded before the server answers 250, so no waiting once sendMail resolved.
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.envelope).toEqual({ from: 'hello@orgnote.test', to: ['ada@example.test'] });
    expect(mail.messageId).toBe(info.messageId);
    expect(mail.parsed.subject).toBe('Your OrgNote invitation');
    expect(mail.parsed.text?.trim()).toBe('Your key: K-123');
    expect(mail.parsed.html).toBe('<p>Your key: <b>K-123</b></p>');
    expect(mail.raw.toString()).toContain('Subject: Your OrgNote invitation\r\n');
  });

  it('takes an smtp:// URL, as SMTP_URL gives it, and waits for messages sent in the background', async () => {
    const smtp = await smtpServer();
    expect(smtp.url).toBe(`smtp://127.0.0.1:${smtp.port}`);
    const sender = transport(smtp.url);
    void sender.sendMail(invitation);
    void sender.sendMail({ ...invitation, to: 'grace@example.test' });
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => m.envelope.to[0]).sort()).toEqual([
      'ada@example.test',
      'grace@example.test',
    ]);
  });

  it('listens on 127.0.0.1 only, on a port below the ephemeral range unless told otherwise', async () => {
    const smtp = await smtpServer();
    expect(smtp.port).toBeGreaterThanOrEqual(10_000);
    expect(smtp.port).toBeLessThan(20_000);
    const kernelPicked = await smtpServer({ port: 0 });
    expect(kernelPicked.port).toBeGreaterThan(0);
    await transport(kernelPicked.url).sendMail(invitation);
    expect(kernelPicked.received).toHaveLength(1);
  });
});

describe('failures, as nodemailer reports them', () => {
  it('a temporary refusal at RCPT TO: EENVELOPE, 451, not permanent; nothing is received', async () => {
    const smtp = await smtpServer();
    smtp.mode('tempfail');
    const err = await failure(transport({ port: smtp.port }).sendMail(invitation));
    expect(err).toMatchObject({
      code: 'EENVELOPE',
      responseCode: 451,
      command: 'RCPT TO',
      permanent: false,
      rejected: ['ada@example.test'],
    });
    expect(smtp.received).toHaveLength(0);
    expect(smtp.rejected).toEqual([
      {
        envelope: { from: 'hello@orgnote.test', to: ['ada@example.test'] },
        responseCode: 451,
        at: 'RCPT',
      },
    ]);
  });

  it('a permanent refusal at RCPT TO: EENVELOPE, 550, permanent', async () => {
    const smtp = await smtpServer();
    smtp.mode('permfail');
    const err = await failure(transport({ port: smtp.port }).sendMail(invitation));
    expect(err).toMatchObject({
      code: 'EENVELOPE',
      responseCode: 550,
      command: 'RCPT TO',
      permanent: true,
    });
  });

  it('refusals after DATA: EMESSAGE, 451 not permanent and 550 permanent', async () => {
    const smtp = await smtpServer();
    const sender = transport({ port: smtp.port });
    smtp.mode('tempfail', 'DATA');
    expect(await failure(sender.sendMail(invitation))).toMatchObject({
      code: 'EMESSAGE',
      responseCode: 451,
      command: 'DATA',
      permanent: false,
    });
    smtp.mode('permfail', 'DATA');
    expect(await failure(sender.sendMail(invitation))).toMatchObject({
      code: 'EMESSAGE',
      responseCode: 550,
      command: 'DATA',
      permanent: true,
    });
    expect(smtp.rejected.map((r) => [r.responseCode, r.at])).toEqual([
      [451, 'DATA'],
      [550, 'DATA'],
    ]);
    expect(smtp.received).toHaveLength(0);
  });

  it('accepts again once the mode is back to accept', async () => {
    const smtp = await smtpServer();
    const sender = transport({ port: smtp.port });
    smtp.mode('tempfail');
    await failure(sender.sendMail(invitation));
    smtp.mode('accept');
    await sender.sendMail(invitation);
    expect(smtp.received).toHaveLength(1);
  });

  // A pool keeps its connection open between messages: stop() has to drop it, or the pool would
  // go on delivering to a server that is supposed to be down.
  it.each([false, true])(
    'down: ESOCKET from ECONNREFUSED at CONN, no responseCode; up again on the same port (pool: %s)',
    async (pool) => {
      const smtp = await smtpServer();
      const sender = transport({ port: smtp.port, pool });
      await sender.sendMail(invitation);

      await smtp.stop();
      const err = await failure(sender.sendMail(invitation));
      expect(err).toMatchObject({ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' });
      expect(err.responseCode).toBeUndefined();
      expect(err.permanent).toBeUndefined();

      await smtp.start();
      await sender.sendMail(invitation);
      expect(smtp.received).toHaveLength(2);
    },
  );

  // Nodemailer starts reading a stream body once it has sent DATA (pipelined after MAIL FROM and
  // RCPT TO, on a connection already open); this one stops after its first line, so the server
  // goes down in the middle of the transaction.
  it('down in the middle of a transaction: ECONNECTION at CONN, no responseCode; the half message is not kept', async () => {
    const smtp = await smtpServer();
    const sender = transport({ port: smtp.port, pool: true });
    await sender.sendMail(invitation);
    let midMessage!: () => void;
    const sentFirstLine = new Promise<void>((resolve) => (midMessage = resolve));
    let pushed = false;
    const stalling = new Readable({
      read() {
        if (pushed) return;
        pushed = true;
        this.push('Your key: K-');
        midMessage();
      },
    });
    const sending = failure(sender.sendMail({ ...invitation, text: stalling }));
    await sentFirstLine;
    await smtp.stop();
    const err = await sending;
    expect(err).toMatchObject({ code: 'ECONNECTION', command: 'CONN' });
    expect(err.responseCode).toBeUndefined();
    expect(smtp.received).toHaveLength(1);
  });
});

describe('auth', () => {
  const auth = { user: 'site', pass: 'p@ss word' };

  it('takes the login from a user:pass URL, over plain SMTP', async () => {
    const smtp = await smtpServer({ auth });
    expect(smtp.url).toBe(`smtp://site:p%40ss%20word@127.0.0.1:${smtp.port}`);
    await transport(smtp.url).sendMail(invitation);
    expect(smtp.received).toHaveLength(1);
  });

  it('refuses a wrong password (EAUTH, 535) and a missing login (530 at MAIL FROM)', async () => {
    const smtp = await smtpServer({ auth });
    const wrong = await failure(
      transport(`smtp://site:nope@127.0.0.1:${smtp.port}`).sendMail(invitation),
    );
    expect(wrong).toMatchObject({
      code: 'EAUTH',
      responseCode: 535,
      command: 'AUTH PLAIN',
      permanent: true,
    });
    const missing = await failure(transport({ port: smtp.port }).sendMail(invitation));
    expect(missing).toMatchObject({
      code: 'EENVELOPE',
      responseCode: 530,
      command: 'MAIL FROM',
      permanent: true,
    });
    expect(smtp.received).toHaveLength(0);
  });

  it('accepts any login when none is configured, so a URL with credentials still works', async () => {
    const smtp = await smtpServer();
    await transport(`smtp://anyone:anything@127.0.0.1:${smtp.port}`).sendMail(invitation);
    expect(smtp.received).toHaveLength(1);
  });
});

describe('parse: false, for benchmarks', () => {
  it('keeps the envelope and Message-ID only, and counts duplicates by Message-ID', async () => {
    const smtp: SmtpTestServer<CountedMail> = await startSmtpServer({ parse: false });
    opened.push(smtp);
    const sender = transport({ port: smtp.port, pool: true });
    await sender.sendMail({ ...invitation, messageId: '<one@orgnote.test>' });
    await sender.sendMail({ ...invitation, messageId: '<one@orgnote.test>' });
    await sender.sendMail({ ...invitation, to: 'grace@example.test' });

    expect(smtp.received[0]).toEqual({
      envelope: { from: 'hello@orgnote.test', to: ['ada@example.test'] },
      messageId: '<one@orgnote.test>',
    });
    expect(smtp.stats()).toEqual({
      received: 3,
      uniqueMessageIds: 2,
      duplicates: 1,
      recipients: 2,
    });
  });
});
