// The plain form's signed issue time (decision 0024). A form without JavaScript cannot do the
// proof of work, so it proves time instead: the page carries a field the server signed, saying
// from when until when it may be posted and how many times. `/` is prerendered and may sit in a
// shared cache, so every visitor of one copy gets the same field: it may be used SHARED_USES times
// across replicas, and the page is rendered again (with a new field) every REISSUE_MS. A page
// rendered for one request (the form that came back, a prefilled link) carries a field of its own,
// good once. A missing or forged field is a bot's; one too soon, too old or used up brings the
// form back, since a person may have sent it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';
import type { Store } from '../store';
import { ISSUED_FIELD } from '../../shared/native-form';

export type FieldCheck = 'ok' | 'forged-field' | 'too-soon' | 'stale-field' | 'used-field';

/** Nobody types an address and a line about themselves faster; a bot posts at once. */
export const MIN_FILL_MS = 3_000;
/** A form that came back needs a press only, which takes a person more than this. */
export const AGAIN_MIN_MS = 1_000;
/** How long a person may keep the form open before sending it. */
export const FILL_MS = 2 * 60 * 60 * 1000;
/** The prerendered page gets a new field this often: the uses of one field cover this window. */
export const REISSUE_MS = 5 * 60 * 1000;
/**
 * Signups one prerendered page's field takes: more than the no-JavaScript signups a replica sees
 * while one copy is served (REISSUE_MS plus PAGE_CACHE_SECONDS). Past it a person gets the form
 * back with a field of their own, one press away; a bot replaying the field gets this many.
 */
export const SHARED_USES = 20;

export interface IssuedField {
  /** The field of the page prerendered now, shared by all its visitors. */
  issue(): Promise<string>;
  /**
   * A field for a page rendered for one request. `posted`, the field its form sent if any: when
   * it is ours, the person has spent time on the form already, so the new one is good a press
   * later (never earlier than the posted one).
   */
  issueFor(posted?: unknown): Promise<string>;
  /** The form's issue-time field: ours, old enough, not too old, not used up. */
  check(fields: Record<string, unknown>): Promise<FieldCheck>;
  /** A prerendered page carrying issue()'s field is rendered again when this old. */
  reissueMs: number;
}

interface Terms {
  notBefore: number;
  notAfter: number;
  uses: number;
}

export function issuedField({
  config,
  store,
  now,
}: {
  config: Config;
  store: Pick<Store, 'consoleKeys' | 'guardTokens'>;
  now: () => number;
}): IssuedField {
  // A shared cache may serve a page PAGE_CACHE_SECONDS after it was fetched, which is up to
  // REISSUE_MS after it was rendered; the person then takes their time.
  const sharedLifeMs = REISSUE_MS + config.pageCacheSeconds * 1000 + FILL_MS;
  // Kept once read, never while pending: a read that fails (the store is down) is tried again at
  // the next use instead of failing every form until a restart.
  let key: string | undefined;
  const macOf = async (text: string) => {
    key ??= await store.consoleKeys.get('issued-field');
    return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
  };

  async function sign({ notBefore, notAfter, uses }: Terms): Promise<string> {
    // The nonce keeps two fields issued in one millisecond from sharing their uses.
    const text = `${notBefore}.${notAfter}.${uses}.${randomBytes(9).toString('base64url')}`;
    return `${text}.${await macOf(text)}`;
  }

  /** The terms of a field we signed; undefined for anything else. */
  async function termsOf(value: unknown): Promise<Terms | undefined> {
    if (typeof value !== 'string' || value.length > 200) return undefined;
    const match = /^(\d{1,15})\.(\d{1,15})\.(\d{1,4})\.[\w-]{12}\.([\w-]{43})$/.exec(value);
    if (!match) return undefined;
    const expected = Buffer.from(await macOf(value.slice(0, value.lastIndexOf('.'))));
    if (!timingSafeEqual(expected, Buffer.from(match[4]))) return undefined;
    return { notBefore: Number(match[1]), notAfter: Number(match[2]), uses: Number(match[3]) };
  }

  return {
    reissueMs: REISSUE_MS,

    issue() {
      const at = now();
      return sign({ notBefore: at + MIN_FILL_MS, notAfter: at + sharedLifeMs, uses: SHARED_USES });
    },

    async issueFor(posted) {
      const at = now();
      const earlier = await termsOf(posted);
      const notBefore = earlier ? Math.max(earlier.notBefore, at + AGAIN_MIN_MS) : at + MIN_FILL_MS;
      return sign({ notBefore, notAfter: at + FILL_MS, uses: 1 });
    },

    async check(fields) {
      const value = fields[ISSUED_FIELD];
      const terms = await termsOf(value);
      if (!terms) return 'forged-field';
      const at = now();
      if (at < terms.notBefore) return 'too-soon';
      if (at > terms.notAfter) return 'stale-field';
      const fresh = await store.guardTokens.use(value as string, terms.uses, terms.notAfter);
      return fresh ? 'ok' : 'used-field';
    },
  };
}
