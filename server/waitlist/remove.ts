// remove: a person's right to erasure. The store deletes everything it keeps about an address in
// one transaction (store/erasure.ts); what it cannot reach are the .eml copies of the mail, on
// this machine's disk, so they go here, by the ids the store hands back.
import fs from 'node:fs';
import type { Config } from '../config';
import { emlFile, emlTemporaryFile } from '../mail/transport';
import type { Store } from '../store';
import type { EraseOptions } from '../store/erasure';

export interface RemoveDeps {
  store: Pick<Store, 'erase'>;
  config: Pick<Config, 'dataDir'>;
}

export type RemoveResult =
  | { kind: 'nothing-stored'; email: string }
  | {
      kind: 'removed';
      email: string;
      signup: boolean;
      keys: number;
      mails: number;
      emlFiles: number;
      outbox: number;
    };

/**
 * `onlyIfExpired`: the expiry sweep's erasure, done only if the address is still unconfirmed and
 * expired. `reason`: what the signup's `signup.left` event says (an operator's removal unless
 * given).
 */
export async function remove(
  { store, config }: RemoveDeps,
  email: string,
  options: EraseOptions = {},
): Promise<RemoveResult> {
  const erased = await store.erase(email, options);
  const emlFiles = removeMailCopies(config.dataDir, erased.mailIds);
  const shown = email.trim();
  if (!erased.signup && erased.outbox === 0) return { kind: 'nothing-stored', email: shown };
  return {
    kind: 'removed',
    email: shown,
    signup: erased.signup,
    keys: erased.keys,
    mails: erased.mailIds.length,
    emlFiles,
    outbox: erased.outbox,
  };
}

/**
 * Deletes the .eml copies (MAIL_TO_FILES) of erased mail, by the ids the store handed back; how
 * many finished files there were.
 */
export function removeMailCopies(dataDir: string, mailIds: readonly number[]): number {
  let emlFiles = 0;
  for (const id of mailIds) {
    // The finished file, and one a crash left half-written: both hold the address and a key.
    for (const file of [emlFile(dataDir, id), emlTemporaryFile(dataDir, id)]) {
      try {
        fs.unlinkSync(file);
        if (file.endsWith('.eml')) emlFiles++;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // sent over SMTP: no file
      }
    }
  }
  return emlFiles;
}
