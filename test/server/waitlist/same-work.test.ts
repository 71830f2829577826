// The same work, whatever the address: before it answers, POST /leave writes the same for an
// address on the list as for one that is not (and so does /privacy's data request), and a signup
// the same for a known address as for a new one, so the time of the answer tells nobody who is on
// the list. Measured on the store as a disk sees it: the write transactions committed (each one a
// sync on SQLite) and the rows written, on both engines. The leave link itself arrives after the
// answer, from the mail worker.
import fs from 'node:fs';
import request from 'supertest';
import { simpleParser } from 'mailparser';
import { createApp } from '../../../server/app';
import type { Config } from '../../../server/config';
import { confirmationMailFor } from '../../../server/mail/confirmation';
import { dataLinkMailFor } from '../../../server/mail/data-link';
import { leaveLinkMailFor } from '../../../server/mail/leave-link';
import { welcomeMailFor } from '../../../server/mail/welcome';
import { createMailer, mailFolder } from '../../../server/mail/transport';
import type { PostgresStore } from '../../../server/store/postgres';
import type { SqliteStore } from '../../../server/store/sqlite';
import type { Store } from '../../../server/store/types';
import { startMailWorker } from '../../../server/workers/mail-worker';
import { capturingLogger, testConfig } from '../../support/config';
import { addInvited, countRows, describeEachEngine } from '../../support/stores';

interface Writes {
  /** Write transactions committed. */
  commits: number;
  /** Rows inserted, updated or deleted. */
  rows: number;
}

/**
 * What the store wrote while `act` ran. SQLite: the commit frames appended to the WAL file (each
 * one a sync) and the rows its connection changed (total_changes()). PostgreSQL: the transaction
 * ids handed out (only a transaction that writes takes one) and the rows those transactions left.
 */
async function writesDuring(store: Store, act: () => Promise<unknown>): Promise<Writes> {
  if (store.engine === 'sqlite') {
    const { db } = store as SqliteStore;
    const changes = () => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const [commits, rows] = [walCommits(`${db.name}-wal`), changes()];
    await act();
    return { commits: walCommits(`${db.name}-wal`) - commits, rows: changes() - rows };
  }
  const { pool } = store as PostgresStore;
  const nextXid = async () =>
    Number(
      (
        await pool.query<{ xid: string }>(
          'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid',
        )
      ).rows[0].xid,
    );
  const before = await nextXid();
  await act();
  const tables = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
  );
  // The transactions that wrote the site's tables: not every transaction id the server gave out,
  // since autovacuum's ANALYZE takes one too, whenever it likes.
  const writers = new Set<string>();
  let rows = 0;
  for (const { name } of tables.rows) {
    const written = await pool.query<{ xid: string }>(
      `SELECT xmin::text AS xid FROM ${name} WHERE xmin::text::bigint >= $1`,
      [before],
    );
    rows += written.rows.length;
    for (const { xid } of written.rows) writers.add(xid);
  }
  return { commits: writers.size, rows };
}

/**
 * Commit frames in a WAL file (sqlite.org/fileformat2.html#walformat): a 32-byte header, then
 * frames of a 24-byte header and a page; a commit's frame header holds the database's size after
 * it (non-zero). Only frames of the current salt count (a checkpoint's restart reuses the file).
 */
function walCommits(file: string): number {
  if (!fs.existsSync(file)) return 0;
  const wal = fs.readFileSync(file);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = wal.subarray(16, 24);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(salt)) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

/** The recipients of the .eml files the site's mailer wrote (no SMTP_URL). */
async function mailedTo(config: Config): Promise<string[]> {
  const folder = mailFolder(config.dataDir);
  const files = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const parsed = await Promise.all(
    files
      .filter((name) => name.endsWith('.eml'))
      .map((name) => simpleParser(fs.readFileSync(`${folder}/${name}`))),
  );
  return parsed.map((mail) => (mail.to as { text: string }).text);
}

describeEachEngine((engine) => {
  let store: Store;
  beforeEach(async () => {
    store = await engine.open({ now: Date.now });
  });

  /** The running site's mail worker, answering the requests `links` names until none is left. */
  async function mailRound(
    config: Config,
    links: Pick<Parameters<typeof startMailWorker>[0], 'leaveLinks' | 'dataLinks'>,
    logger = capturingLogger().logger,
  ) {
    const worker = startMailWorker({
      queue: store.mail,
      ...links,
      mailer: createMailer(config),
      logger,
      pollMs: 60_000,
    });
    try {
      await worker.flush();
    } finally {
      await worker.stop();
    }
  }

  it('answers POST /leave for a listed and an unlisted address after the same writes, and mails the link afterwards', async () => {
    const config = testConfig({ SITE_URL: 'https://orgnote.example' });
    const app = createApp(config, { store });
    await store.signups.add({ email: 'ann@example.org', description: '' });
    const ask = (email: string) => request(app).post('/leave').type('form').send({ email });

    let listed: request.Response | undefined;
    let unlisted: request.Response | undefined;
    const listedWrites = await writesDuring(
      store,
      async () => (listed = await ask('ann@example.org')),
    );
    const unlistedWrites = await writesDuring(
      store,
      async () => (unlisted = await ask('nobody@example.org')),
    );
    expect([listed?.status, unlisted?.status]).toEqual([200, 200]);
    expect(unlistedWrites).toEqual(listedWrites);
    // One insert each: the request, recorded; nothing looked up, no link and no mail yet.
    expect(listedWrites).toEqual({ commits: 1, rows: 1 });
    expect(await countRows(store, 'leave_requests')).toBe(2);
    expect(await countRows(store, 'address_tokens')).toBe(0);
    expect(await store.mail.counts()).toMatchObject({ queued: 0, sent: 0 });

    // The running site's mail worker answers both: a link to the listed address, nothing to the
    // other, and neither request stays behind.
    await mailRound(config, {
      leaveLinks: { links: store.addressLinks, compose: leaveLinkMailFor(config)! },
    });
    expect(await mailedTo(config)).toEqual(['ann@example.org']);
    expect(await store.mail.counts()).toMatchObject({ queued: 0, sent: 1 });
    expect(await countRows(store, 'leave_requests')).toBe(0);
  });

  it('answers /privacy’s data request for a listed and an unlisted address after the same writes, and mails the link afterwards', async () => {
    const config = testConfig({ SITE_URL: 'https://orgnote.example' });
    const app = createApp(config, { store });
    await store.signups.add({ email: 'bo@example.org', description: '' });
    const ask = (email: string) => request(app).post('/privacy').type('form').send({ email });

    const statuses: number[] = [];
    const listedWrites = await writesDuring(store, async () =>
      statuses.push((await ask('bo@example.org')).status),
    );
    const unlistedWrites = await writesDuring(store, async () =>
      statuses.push((await ask('nobody@example.org')).status),
    );
    expect(statuses).toEqual([200, 200]);
    expect(unlistedWrites).toEqual(listedWrites);
    expect(listedWrites).toEqual({ commits: 1, rows: 1 });
    expect(await countRows(store, 'data_requests')).toBe(2);
    expect(await countRows(store, 'data_tokens')).toBe(0);

    await mailRound(config, {
      dataLinks: { requests: store.dataRequests, compose: dataLinkMailFor(config)! },
    });
    expect(await mailedTo(config)).toEqual(['bo@example.org']);
    expect(await countRows(store, 'data_requests')).toBe(0);
    expect(await countRows(store, 'data_tokens')).toBe(1);
  });

  it('answers the same with the mail queue full, and refuses every address alike past the bound on requests', async () => {
    await store.close();
    store = await engine.open({ now: Date.now, limits: { mailMaxItems: 2 } });
    const config = testConfig({ SITE_URL: 'https://orgnote.example' });
    const app = createApp(config, { store });
    const ask = (email: string) => request(app).post('/leave').type('form').send({ email });
    // Two invitations in the queue: it holds no more mail.
    await addInvited(store, 'ann@example.org');
    await addInvited(store, 'bob@example.org');

    expect((await ask('ann@example.org')).status).toBe(200);
    expect((await ask('nobody@example.org')).status).toBe(200);
    // As many requests wait as the queue holds mail: the next one is refused, listed or not.
    const [listed, unlisted] = [await ask('bob@example.org'), await ask('nobody@example.org')];
    expect([listed.status, unlisted.status]).toEqual([503, 503]);
    // The same page but for the nonce and the address typed, which the form shows again.
    const normal = (html: string, email: string) =>
      html
        .replace(/nonce="[^"]+"/g, 'nonce=""')
        .replace(/'nonce-[^']+'/g, '')
        .replaceAll(email, 'typed');
    expect(normal(unlisted.text, 'nobody@example.org')).toBe(
      normal(listed.text, 'bob@example.org'),
    );

    // The worker answers both requests; the listed address's link finds the queue full, which
    // the log says without the address, long after the answer.
    const { logger, lines } = capturingLogger();
    await mailRound(
      config,
      { leaveLinks: { links: store.addressLinks, compose: leaveLinkMailFor(config)! } },
      logger,
    );
    expect(await countRows(store, 'leave_requests')).toBe(0);
    expect(await store.mail.counts()).toMatchObject({ queued: 2, sent: 0 });
    const log = lines.map((line) => JSON.parse(line) as { msg: string; requests?: number });
    expect(log.filter((line) => line.msg === 'no leave link could be queued')).toEqual([
      expect.objectContaining({ requests: 1 }),
    ]);
    expect(lines.join('\n')).not.toContain('ann@example.org');
  });

  it.each([
    ['on', 'off'],
    ['off', 'off'],
    ['off', 'on'],
  ])(
    'answers a signup of a known address after the same writes as a new one (CONFIRM_SIGNUPS=%s, WELCOME_MAIL=%s)',
    async (confirm, welcome) => {
      const config = testConfig({
        SITE_URL: 'https://orgnote.example',
        CONFIRM_SIGNUPS: confirm,
        WELCOME_MAIL: welcome,
        MAIL_TO_FILES: 'on',
      });
      const app = createApp(config, { store });
      const signUp = (email: string) =>
        request(app).post('/api/subscriptions').send({ email, description: 'emacs' });
      await signUp('known@example.org').expect(201);
      // As the mail worker leaves it: the confirmation it owed written (CONFIRM_SIGNUPS=on).
      await store.addressLinks.mailConfirmations(10, confirmationMailFor(config)!);
      // And the welcome it owed (WELCOME_MAIL=on).
      const welcomeMail = welcomeMailFor(config);
      if (welcomeMail) await store.addressLinks.mailWelcomes(10, welcomeMail);

      let fresh: request.Response | undefined;
      let known: request.Response | undefined;
      const newWrites = await writesDuring(
        store,
        async () => (fresh = await signUp('new@example.org')),
      );
      const knownWrites = await writesDuring(
        store,
        async () => (known = await signUp('KNOWN@example.org')),
      );
      expect([fresh?.status, known?.status]).toEqual([201, 201]);
      expect(knownWrites).toEqual(newWrites);
      // One write of one row: the new signup, stored before its 201, or the known one, written
      // again.
      expect(newWrites).toEqual({ commits: 1, rows: 1 });
      expect(await store.signups.count()).toBe(2);
    },
  );
});
