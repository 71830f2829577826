// The embedded section of npm run bench: the API routes a site without BACKEND_URL answers itself,
// set against its own signup route (the issue: activation and subscription-info should answer at
// the speed of the other embedded API routes). A second site process runs on a DATA_DIR seeded
// beforehand with one signup, its activation key and an activation bound to an account, so that
// every request of every case is a repeat that answers 2xx:
//   1. POST /api/subscriptions, the seeded address: the baseline;
//   2. POST /api/subscription-activation, the valid key and the same account: 200 each time;
//   3. GET /api/subscription-info/{provider}/{externalId} with the token: 200.
// BENCH_EMBEDDED_ROUNDS rounds (default 2, so the whole bench stays near 6 min with the defaults;
// keep it even). The order rotates every two rounds and reverses within each two (see ORDERS), and
// each ratio (activation/signup, subscription-info/signup in req/s) is the median of its per-round
// ratios, for the same reasons as the proxy pairs (index.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeMultipart } from '../../../server/backend/client';
import { openSqliteStore } from '../../../server/store';
import type { Account } from '../../../server/store/subscriptions';
import { startBuiltServer } from '../../lib/launch/server';
import { inRounds, mediansOf, type Case, type Measured, type Traffic } from './measure';
import { median } from './stats';

export const EMBEDDED_ROUNDS = Number(process.env.BENCH_EMBEDDED_ROUNDS ?? 2);

const EMAIL = 'bench@example.org';
const ACCOUNT: Account = { provider: 'github', id: 'bench-1' };

/**
 * Indexes into the cases, one list per round. Each list is followed by its reverse, so with an
 * even number of rounds every pair of cases runs in both orders equally often (which side of a
 * pair goes first moves its ratio, see index.ts); the first of each two is a rotation of the one
 * before, so no case always goes first. Six rounds run every order once.
 */
const ORDERS = [
  [0, 1, 2],
  [2, 1, 0],
  [1, 2, 0],
  [0, 2, 1],
  [2, 0, 1],
  [1, 0, 2],
];

export interface EmbeddedReport {
  rounds: Measured[][];
  /** Each case's median over the rounds, in the order signup, activation, subscription-info. */
  results: Measured[];
  activationRatios: number[];
  activationRatio: number;
  infoRatios: number[];
  infoRatio: number;
}

/**
 * One signup, a key issued for it and an activation bound to ACCOUNT, written straight to the
 * store before the site opens it: keys are only issued by the CLI, never over HTTP. Returns the
 * key.
 */
async function seedStore(dataDir: string): Promise<string> {
  const store = openSqliteStore({ dataDir });
  try {
    await store.signups.add({ email: EMAIL, description: 'benchmark' });
    const key = await store.subscriptions.issueKey(EMAIL);
    const activation = await store.subscriptions.activate(EMAIL, key, ACCOUNT);
    if (activation.outcome !== 'active')
      throw new Error(`seeding the embedded store: activation answered ${activation.outcome}`);
    return key;
  } finally {
    await store.close();
  }
}

function multipartPost(fields: [string, string][]): Pick<Traffic, 'method' | 'body' | 'headers'> {
  const form = encodeMultipart(fields);
  return { method: 'POST', body: form.body, headers: { 'content-type': form.contentType } };
}

/**
 * One request per case before any window: a non-2xx means the seed is wrong, and minutes of 404s
 * would say no more.
 */
async function checkAnswers(cases: Case[]): Promise<void> {
  for (const [name, { url, method, headers, body }] of cases) {
    const response = await fetch(url, { method, headers, body: body && new Uint8Array(body) });
    if (!response.ok)
      throw new Error(
        `${name} answered ${response.status} before measuring: ${await response.text()}`,
      );
  }
}

export async function benchEmbedded(rounds: number = EMBEDDED_ROUNDS): Promise<EmbeddedReport> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-bench-embedded-'));
  try {
    const key = await seedStore(dataDir);
    const token = randomBytes(24).toString('base64url'); // 32 characters
    const site = await startBuiltServer({
      env: {
        BACKEND_URL: '', // empty is unset: the embedded store
        DATA_DIR: dataDir,
        SIGNUP_RATE_LIMIT: '0', // both form routes are rate-limited; the benchmark is one client
        SUBSCRIPTION_API_TOKEN: token,
        // LOG_LEVEL as for the proxying site (the default, info): an access-log line per
        // request, as in production.
      },
      logFile: 'site.log',
    });
    try {
      return await measureEmbedded(site.url, site.child.pid, key, token, rounds);
    } finally {
      await site.stop(); // the seeded DATA_DIR is ours, removed below
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureEmbedded(
  site: string,
  sitePid: number | undefined,
  key: string,
  token: string,
  rounds: number,
): Promise<EmbeddedReport> {
  const cases: Case[] = [
    // The same address every time: after the seed, every signup is a repeat. Repeats are what a
    // flood looks like, and in the embedded store each costs one INSERT … ON CONFLICT DO NOTHING.
    [
      'POST /api/subscriptions (embedded, repeat)',
      {
        url: `${site}/api/subscriptions`,
        ...multipartPost([
          ['email', EMAIL],
          ['description', 'benchmark'],
        ]),
      },
      { site: sitePid },
    ],
    [
      'POST /api/subscription-activation (same account)',
      {
        url: `${site}/api/subscription-activation`,
        ...multipartPost([
          ['email', EMAIL],
          ['key', key],
          ['externalProvider', ACCOUNT.provider],
          ['externalId', ACCOUNT.id],
        ]),
      },
      { site: sitePid },
    ],
    [
      'GET /api/subscription-info/{provider}/{id}',
      {
        url: `${site}/api/subscription-info/${ACCOUNT.provider}/${ACCOUNT.id}`,
        headers: { authorization: `Token ${token}` },
      },
      { site: sitePid },
    ],
  ];
  await checkAnswers(cases);
  const measured = await inRounds(cases, rounds, (round) => ORDERS[round % ORDERS.length]);
  const activationRatios = measured.map(([signup, activation]) => activation.rps / signup.rps);
  const infoRatios = measured.map(([signup, , info]) => info.rps / signup.rps);
  return {
    rounds: measured,
    results: mediansOf(cases, measured),
    activationRatios,
    activationRatio: median(activationRatios),
    infoRatios,
    infoRatio: median(infoRatios),
  };
}
