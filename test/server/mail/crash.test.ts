// Queued mail survives kill -9: the site is killed while invitations wait for a mail server that
// is down; once the server is back and the site restarted, each message arrives exactly once.
import { startSmtpServer } from '../../../scripts/lib/launch/smtp';
import { openSqliteStore } from '../../../server/store';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { startServerProcess } from '../../support/server-process';

it('kill -9 of the site with mail queued loses none and sends none twice', async () => {
  const smtp = await startSmtpServer();
  await smtp.stop();
  const dataDir = tempDataDir();
  const emails = Array.from({ length: 5 }, (_, i) => `crash${i}@example.org`);
  const seed = openSqliteStore({ dataDir });
  for (const email of emails) await seed.signups.add({ email, description: '' });
  void seed.close();
  const env = {
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    SITE_URL: 'https://orgnote.example',
    LOG_LEVEL: 'warn',
  };

  const first = await startServerProcess(env);
  try {
    const invited = await runCli(env, ['invite', '--next', '5']);
    expect(invited.out.match(/^queued\s/gm)).toHaveLength(5);
  } finally {
    first.child.kill('SIGKILL');
    await first.exited;
  }

  await smtp.start();
  const second = await startServerProcess(env);
  try {
    // The first retry is due within 10 s of the failed attempt.
    await smtp.waitFor(5);
    // Time for a stray second copy to show up, were one coming.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(smtp.stats()).toEqual({
      received: 5,
      uniqueMessageIds: 5,
      duplicates: 0,
      recipients: 5,
    });
    expect(smtp.received.map((m) => m.envelope.to[0]).sort()).toEqual([...emails].sort());
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
    await smtp.close();
  }
  const store = openSqliteStore({ dataDir });
  try {
    expect(await store.mail.counts()).toEqual({ queued: 0, sent: 5, failed: 0, dead: 0 });
  } finally {
    void store.close();
  }
});
