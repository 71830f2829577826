// The only server settings the browser may see. The server builds this from its validated config
// and embeds it in the page; nothing else about the server's configuration reaches the client.
import { LANGUAGES, type Language } from './i18n/languages';

export interface PublicConfig {
  /** Origin of the online web app ('Use online', activation tab), from WEB_APP_URL. */
  webAppUrl: string;
  /**
   * Who visitors write to about their data ('/privacy'), from PRIVACY_CONTACT (MAIL_FROM when
   * unset).
   */
  privacyContact: string;
  /**
   * A new signup must confirm its address (CONFIRM_SIGNUPS=on, signups stored by the site): the
   * joined view says to look in the inbox.
   */
  confirmSignups: boolean;
  /**
   * The form with JavaScript solves a proof-of-work challenge (PROOF_OF_WORK=on) and sends it with
   * its signup.
   */
  proofOfWork: boolean;
  /**
   * Days a backup is kept (BACKUP_RETENTION_DAYS): '/privacy' says an erased address lasts that
   * long in the backups taken before it left.
   */
  backupRetentionDays: number;
  /** Where webhooks send visitors' addresses, which '/privacy' lists. */
  addressRecipients: AddressRecipients;
  /** The site's languages (LANGUAGES): each page links the others in its header. */
  languages: readonly Language[];
}

/**
 * The webhook endpoints that send visitors' addresses on (added --with-address): the names
 * operators gave them, and how many were stored before endpoints had names (counted by host,
 * server/webhooks/recipients.ts), which each language words on its own. Never anything of an
 * endpoint's URL, not even its host.
 */
export interface AddressRecipients {
  names: readonly string[];
  unnamed: number;
}

export const NO_RECIPIENTS: AddressRecipients = { names: [], unnamed: 0 };

export const DEFAULT_PUBLIC_CONFIG: PublicConfig = {
  webAppUrl: 'https://org-note.com',
  privacyContact: 'OrgNote <no-reply@localhost>',
  confirmSignups: false,
  proofOfWork: false,
  backupRetentionDays: 7,
  addressRecipients: NO_RECIPIENTS,
  languages: LANGUAGES,
};
