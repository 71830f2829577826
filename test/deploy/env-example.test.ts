// deploy/.env.example as it ships, with only the two values README tells an operator to set
// (SITE_DOMAIN and MAIL_FROM): the built site started from it shows visitors none of the file's
// example names. Whatever else the file sets reaches a real site, so a placeholder left
// uncommented (PRIVACY_CONTACT=privacy@orgnote.example was one) would be public.
import fs from 'node:fs';
import path from 'node:path';
import { serverWithMetrics } from '../support/server-process';

const FILE = path.resolve(__dirname, '../../deploy/.env.example');
const TEXT = fs.readFileSync(FILE, 'utf8');

/** The operator's own values: a domain of theirs, and a mailbox at it that they read. */
const OPERATOR = { SITE_DOMAIN: 'org-note.com', MAIL_FROM: 'OrgNote <hello@org-note.com>' };

/** The file's `NAME=value` lines that are not comments, as Compose's env_file reads them. */
function settings(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)) env[name] = value;
  return env;
}

/** Every domain of the file's that holds 'example' (orgnote.example, mail.example.org, ...). */
function exampleNames(text: string): string[] {
  const names =
    text.match(/(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.example\b(?:\.[a-z]+)*/gi) ?? [];
  const under = text.match(/(?<![\w.-])example(?:\.[a-z0-9-]+)+/gi) ?? [];
  return [...new Set([...names, ...under])];
}

const PUBLIC_PAGES = [
  '/',
  '/activate',
  '/activate?email=someone%40org-note.com',
  '/privacy',
  '/leave',
  '/confirm?token=not-a-token',
  '/no-such-page',
  '/robots.txt',
  '/sitemap.xml',
];

describe('deploy/.env.example as it ships', () => {
  const site = serverWithMetrics();

  it('sets the two values README names, on lines the kit tests can replace', () => {
    const shipped = settings(TEXT);
    for (const name of Object.keys(OPERATOR)) {
      expect(shipped[name]).toMatch(/example/);
      // test/image/*.test.ts lay out .env by replacing the first `^#? ?NAME=` line.
      expect(new RegExp(`^#? ?${name}=.*$`, 'm').exec(TEXT)?.[0]).toBe(`${name}=${shipped[name]}`);
    }
    expect(exampleNames(TEXT)).toContain('orgnote.example');
  });

  it('starts a site that shows visitors none of its example names', async () => {
    const env = { ...settings(TEXT), ...OPERATOR };
    // What compose.yml adds (x-site-environment), and what a test needs: its own folder and
    // ports, the metrics listener on loopback.
    const server = await site.start({
      ...env,
      SITE_URL: `https://${env.SITE_DOMAIN}`,
      METRICS_PORT: String(site.metricsPort),
      METRICS_HOST: '127.0.0.1',
    });
    expect(server.output()).toContain('"mail":"files"');

    const names = exampleNames(TEXT);
    const leaks: string[] = [];
    for (const page of PUBLIC_PAGES) {
      const res = await fetch(`${server.url}${page}`);
      expect(res.status).toBeLessThan(500);
      const body = (await res.text()).toLowerCase();
      for (const name of names)
        if (body.includes(name.toLowerCase())) leaks.push(`${page}: ${name}`);
    }
    expect(leaks).toEqual([]);

    // Without PRIVACY_CONTACT, /privacy names the mailbox the operator set as MAIL_FROM.
    const privacy = await (await fetch(`${server.url}/privacy`)).text();
    expect(privacy).toContain('href="mailto:hello@org-note.com"');
  });
});
