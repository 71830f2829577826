// The signup operation, the only way a signup enters the system
// (docs/decisions/0011-one-operation-for-a-signup.md). The API and the no-JavaScript form both call
// signup(); they only translate HTTP to it and its outcome back. It checks the fields, drops a
// filled honeypot silently, and delivers exactly the checked signup (trimmed email, description,
// the page's language, where it came from): to the embedded store without BACKEND_URL, otherwise
// to the backend (the language and the source as sent: the backend owns them), and to the outbox
// when the backend cannot take it (docs/decisions/0005-outbox.md). It returns only once the signup
// is committed somewhere.
import { randomUUID } from 'node:crypto';
import { API_PATHS } from '../../shared/constants';
import {
  checkSignup,
  isHoneypotFilled,
  shownText,
  type FieldList,
  type SignupErrors,
  type SignupField,
  type SignupRules,
} from '../../shared/form-checks';
import type { Config } from '../config';
import type { FieldProblem } from '../../shared/field-problems';
import { isNotNow, postSignup, type BackendAnswer, type SignupRequest } from '../backend/client';
import type { SignupGuard } from '../guard';
import type { Logger } from '../logger';
import { NO_METRICS, type GuardRoute, type Metrics } from '../metrics';
import type { Store } from '../store';
import { LANGUAGES } from '../../shared/i18n/languages';
import { LANGUAGE_FIELD } from '../../shared/native-form';
import { SOURCE_FIELDS } from '../../shared/sources';

export type SignupOutcome =
  /**
   * `message` is the first field's problem in English and `problem` the same as data (the API's),
   * `errors` every field's, as the form shows them in its language.
   */
  | {
      kind: 'invalid';
      field: SignupField;
      message: string;
      problem: FieldProblem;
      errors: SignupErrors;
    }
  /** A filled honeypot, or no proof the bot guard takes: answered like a success, nothing kept. */
  | { kind: 'dropped'; email: string }
  /** The plain form came too soon, too late or used up (server/guard/): shown again to resend. */
  | { kind: 'reissue' }
  | { kind: 'stored'; email: string }
  | { kind: 'queued' }
  | { kind: 'answered'; answer: BackendAnswer };

/** Where a signup came from, as far as the backend needs to know. */
export interface SignupOrigin {
  /**
   * The visitor as the handler saw it; `forwarded` (the X-Forwarded-* headers for the backend) is
   * read only when the signup goes to the backend, so a handler may compute it lazily.
   */
  client: { readonly forwarded: SignupRequest['forwarded'] };
  /** The API path and query the visitor posted to; the native form posts to the API's path. */
  path?: string;
}

export interface SignupInput {
  /** The form as it arrived, in any encoding; checked here, not by the handler. */
  fields: Record<string, unknown>;
  from: SignupOrigin;
  /** What the handler's form requires beyond the API (the page's form requires a description). */
  rules?: SignupRules;
  /** The API (the default) or the plain form: what the bot guard asks of it. */
  route?: GuardRoute;
}

export interface SignupDeps {
  config: Pick<Config, 'backendUrl' | 'backendTimeoutMs' | 'confirmSignups' | 'welcomeMail'>;
  store: Pick<Store, 'signups' | 'outbox'>;
  logger: Logger;
  metrics?: Pick<Metrics, 'signup'>;
  /**
   * Told when a confirmation may be due, so the mail worker writes and sends it now rather than at
   * its next poll.
   */
  wakeMail?: () => void;
  /** Told when a signup was stored, so the webhook worker writes and sends its events now. */
  wakeWebhooks?: () => void;
  /** What a signup must show beyond its fields (server/guard/); none when not given. */
  guard?: SignupGuard;
}

/** signup() with its deps bound: what the handlers are handed. */
export type SubmitSignup = (input: SignupInput) => Promise<SignupOutcome>;

export async function signup(
  deps: SignupDeps,
  { fields, from, rules, route = 'api' }: SignupInput,
): Promise<SignupOutcome> {
  const { config, store, logger, metrics = NO_METRICS } = deps;
  // The embedded store records the language; a backend gets it unchecked, with the other fields.
  // Every language of the site is taken, one LANGUAGES turned off too (a page cached before, a
  // program): its mail then goes out in English (server/mail/message.ts mailLanguage).
  const checked = checkSignup(
    fields,
    config.backendUrl ? rules : { ...rules, languages: LANGUAGES },
  );
  if (!checked.ok) {
    metrics.signup('refused');
    return {
      kind: 'invalid',
      field: checked.field,
      message: checked.error,
      problem: checked.problem,
      errors: checked.errors,
    };
  }
  const { email, description } = checked.value;
  if (isHoneypotFilled(fields)) {
    logger.info({ event: 'honeypot' }, 'dropped a signup that filled the honeypot');
    metrics.signup('honeypot');
    return { kind: 'dropped', email };
  }
  const verdict = deps.guard ? await deps.guard.check({ fields, email, route }) : undefined;
  if (verdict?.kind === 'refuse') {
    metrics.signup('refused');
    const { problem } = verdict;
    const errors = { email: shownText(problem, rules?.words) };
    const message = shownText(problem);
    return { kind: 'invalid', field: 'email', message, problem, errors };
  }
  if (verdict?.kind === 'drop') return { kind: 'dropped', email };
  if (verdict?.kind === 'reissue') return { kind: 'reissue' };
  if (!config.backendUrl) {
    const { confirmSignups: confirm, welcomeMail: welcome } = config;
    const added = await store.signups.add(checked.value, { confirm, welcome });
    // The mail worker writes and sends the confirmation or welcome now rather than at its next poll
    // (woken for a repeat too, which may be due a confirmation: the same work for every address).
    if (confirm || welcome) deps.wakeMail?.();
    // A new signup's signup.created likewise (woken for a repeat too, which is due none).
    deps.wakeWebhooks?.();
    logger.info({ event: 'signup', added }, 'signup stored');
    metrics.signup(added ? 'stored' : 'duplicate');
    return { kind: 'stored', email };
  }
  const forward: FieldList = [
    ['email', email],
    ['description', description],
  ];
  // The page's language and where the signup came from as sent, even a language this site does
  // not serve or a value longer than it keeps: the backend owns signups.
  for (const name of [LANGUAGE_FIELD, ...SOURCE_FIELDS]) {
    const value = fields[name];
    if (typeof value === 'string') forward.push([name, value]);
  }
  return deliver(deps, config.backendUrl, {
    path: from.path ?? API_PATHS.subscriptions,
    fields: forward,
    forwarded: from.client.forwarded,
    idempotencyKey: randomUUID(),
  });
}

async function deliver(
  deps: SignupDeps,
  backendUrl: string,
  request: SignupRequest,
): Promise<SignupOutcome> {
  const metrics = deps.metrics ?? NO_METRICS;
  let answer: BackendAnswer;
  try {
    // Never cancelled: a signup is finished even if the visitor closes the tab.
    answer = await postSignup(backendUrl, request, deps.config.backendTimeoutMs);
  } catch (err) {
    return queue(deps, request, (err as Error).constructor.name);
  }
  if (isNotNow(answer.status)) return queue(deps, request, `status ${answer.status}`);
  // The backend took it (a repeat included: only the backend knows) or refused it with a 4xx.
  metrics.signup(answer.status >= 400 ? 'refused' : 'stored');
  return { kind: 'answered', answer };
}

// QueueFullError or StoreUnavailableError propagate: the handler answers 503 with Retry-After.
async function queue(
  { store, logger, metrics = NO_METRICS }: SignupDeps,
  request: SignupRequest,
  reason: string,
): Promise<SignupOutcome> {
  const id = await store.outbox.enqueue(request);
  logger.warn({ outboxId: id, reason }, 'backend could not take a signup; queued');
  metrics.signup('queued');
  return { kind: 'queued' };
}
