// The bot guard (decision 0024): what a signup must show, beyond its fields, before it is stored
// or sent on. An address at a refused domain is a validation outcome, told under the email field
// of either form. With PROOF_OF_WORK on, the API takes a signup only with a solved, unspent ALTCHA
// challenge (proof-of-work.ts), and the no-JavaScript form only with a signed issue time old enough
// and not used up (issued-field.ts): a missing, forged or spent proof is answered as the honeypot
// is, and a form too soon, too old or used up comes back with what was typed and a fresh field, so
// a person is never dropped. Every turn-away is counted (signup_guard_refusals_total). It runs
// before the store and does the same work for any address (decision 0021).
import type { Config } from '../config';
import type { FieldProblem } from '../../shared/field-problems';
import type { GuardRoute, Metrics } from '../metrics';
import type { Store } from '../store';
import { domainProblem } from './domains';
import { issuedField, type IssuedField } from './issued-field';
import { proofOfWork, type ProofOfWork } from './proof-of-work';

export type GuardVerdict =
  | { kind: 'pass' }
  /** Answered as a filled honeypot is: nothing stored or sent, nothing said. */
  | { kind: 'drop' }
  /** The plain form again, with what was typed and a fresh issue time. */
  | { kind: 'reissue' }
  /** A validation outcome: the problem shows under the email field. */
  | { kind: 'refuse'; problem: FieldProblem };

export interface SignupGuard {
  /** The verdict on a signup whose fields passed their checks. */
  check(signup: {
    fields: Record<string, unknown>;
    email: string;
    route: GuardRoute;
  }): Promise<GuardVerdict>;
  /** With PROOF_OF_WORK on: the challenges the API hands out and checks. */
  proof?: ProofOfWork;
  /** With PROOF_OF_WORK on: the plain form's signed issue time. */
  field?: IssuedField;
}

interface GuardDeps {
  config: Config;
  store: Pick<Store, 'consoleKeys' | 'guardTokens'>;
  metrics: Pick<Metrics, 'guarded'>;
  now?: () => number;
}

export function signupGuard({ config, store, metrics, now = Date.now }: GuardDeps): SignupGuard {
  const refused = domainProblem(config);
  const proof = config.proofOfWork ? proofOfWork({ config, store, now }) : undefined;
  const field = config.proofOfWork ? issuedField({ config, store, now }) : undefined;
  return {
    proof,
    field,
    async check({ fields, email, route }) {
      const problem = refused(email);
      if (problem !== undefined) {
        metrics.guarded(route, 'domain');
        return { kind: 'refuse', problem };
      }
      if (route === 'api' && proof) {
        const checked = await proof.check(fields);
        if (checked === 'ok') return { kind: 'pass' };
        metrics.guarded(route, checked);
        return { kind: 'drop' };
      }
      if (route === 'form' && field) {
        const checked = await field.check(fields);
        if (checked === 'ok') return { kind: 'pass' };
        metrics.guarded(route, checked);
        return checked === 'forged-field' ? { kind: 'drop' } : { kind: 'reissue' };
      }
      return { kind: 'pass' };
    },
  };
}
