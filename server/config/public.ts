// What of the config may be shown: the whitelisted part the browser sees, and URLs as logs and
// messages show them.
import {
  NO_RECIPIENTS,
  type AddressRecipients,
  type PublicConfig,
} from '../../shared/public-config';
import type { Config } from './derived';

/**
 * A URL fit for logs and messages: scheme, host, port and path only. The user and password go, and
 * the query too (pg reads ?password= and ?sslkey= there).
 */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/**
 * The whitelisted part of the config that the browser may see, with the names of the services
 * webhooks send addresses to (server/webhooks/recipients.ts), which the store knows, not the
 * config.
 */
export function publicConfigOf(
  config: Config,
  addressRecipients: AddressRecipients = NO_RECIPIENTS,
): PublicConfig {
  // Only the site that stores signups itself mails confirmations (with BACKEND_URL the backend owns
  // them).
  return {
    webAppUrl: config.webAppUrl,
    privacyContact: config.privacyContact,
    confirmSignups: config.confirmSignups && !config.backendUrl,
    proofOfWork: config.proofOfWork,
    backupRetentionDays: config.backupRetentionDays,
    addressRecipients,
    languages: config.languages,
  };
}
