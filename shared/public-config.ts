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
   * The names operators gave the webhook endpoints that send visitors' addresses on (added
   * --with-address), which '/privacy' lists; endpoints stored before endpoints had names are
   * counted as "a service of theirs" (server/webhooks/recipients.ts). Empty when there are none.
   * Never anything of an endpoint's URL, not even its host.
   */
  addressRecipients: readonly string[];
  /** The site's languages (LANGUAGES): each page links the others in its header. */
  languages: readonly Language[];
}

export const DEFAULT_PUBLIC_CONFIG: PublicConfig = {
  webAppUrl: 'https://org-note.com',
  privacyContact: 'OrgNote <no-reply@localhost>',
  confirmSignups: false,
  proofOfWork: false,
  addressRecipients: [],
  languages: LANGUAGES,
};
