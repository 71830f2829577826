// The compose kit as an operator has it: deploy/ as it ships, and a .env made from its example
// with the lines a test needs set, as the README's steps set them by hand.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { until } from '../support/wait';
import { ROOT, type Run } from './docker';

/**
 * Copies deploy/ as the repository ships it (its tracked files: no .env, secret or backup a run
 * left in the working tree) into `folder`/deploy, and returns that folder.
 */
export function layOutKit(folder: string): string {
  const files = execFileSync('git', ['ls-files', '-z', 'deploy'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of files.split('\0').filter(Boolean)) {
    fs.mkdirSync(path.join(folder, path.dirname(file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(folder, file));
  }
  return path.join(folder, 'deploy');
}

/**
 * The kit's Caddyfile with Caddy's own CA instead of ACME (`tls internal` in the site's block):
 * no public name reaches this machine.
 */
export function useInternalTls(deploy: string): void {
  const file = path.join(deploy, 'Caddyfile');
  const original = fs.readFileSync(file, 'utf8');
  const edited = original.replace(/^\{\$SITE_DOMAIN\} \{$/m, '$&\n\ttls internal');
  if (edited === original) throw new Error(`no site block of {$SITE_DOMAIN} in ${file}`);
  fs.writeFileSync(file, edited);
}

/**
 * The root certificate of Caddy's local CA (PEM), once Caddy has made it: what a test trusts for
 * the site over TLS. `compose` runs a docker-compose command in the kit.
 */
export async function caddyRoot(compose: (args: string) => Run): Promise<string> {
  const root = () => compose('exec -T caddy cat /data/caddy/pki/authorities/local/root.crt');
  await until('Caddy has made its local root', () => root().status === 0, 60_000);
  return root().stdout;
}

/** The line of a setting, commented out (`# NAME=`) or not. */
const lineOf = (name: string) => new RegExp(`^#? ?${name}=.*$`, 'm');

/** Whether a .env text has a line for the setting, set or commented out. */
export const mentions = (text: string, name: string): boolean => lineOf(name).test(text);

/**
 * The .env text with each setting's line set to `NAME=value` (a commented-out one uncommented),
 * or added at the end when the text has none.
 */
export function withSettings(text: string, settings: Record<string, string>): string {
  let result = text;
  for (const [name, value] of Object.entries(settings)) {
    result = mentions(result, name)
      ? result.replace(lineOf(name), `${name}=${value}`)
      : `${result}${name}=${value}\n`;
  }
  return result;
}

/** Sets (or adds) settings in the .env file. */
export function setEnv(file: string, settings: Record<string, string>): void {
  fs.writeFileSync(file, withSettings(fs.readFileSync(file, 'utf8'), settings));
}
