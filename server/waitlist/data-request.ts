// A person's own data (GDPR Art. 15; decision 0036): /privacy's form asks for a link, answered as
// /leave's is whatever the address (address.ts, requestLink); the mailed link downloads, once and
// within a day, everything the site holds about the address as a JSON file, recorded in the audit
// log without the address.
import type { LinkRefusal } from '../../shared/address-links';
import type { DataLinkRequest } from '../../shared/data-requests';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Store } from '../store';
import type { HeldData } from '../store/data-requests';
import { endpointOrigin } from '../webhooks/shown';
import { requestLink } from './address';

export interface DataDeps {
  store: Pick<Store, 'dataRequests'>;
  config: Pick<Config, 'siteUrl' | 'backendUrl'>;
  logger: Logger;
  /** Told when a request was recorded, so the mail worker answers it now. */
  wakeMail?: () => void;
}

/** How the audit log names a download: who acted is whoever holds the mailed link. */
export const DATA_DOWNLOAD_AUDIT = { account: '(mailed link)', action: 'data download' } as const;

/** /privacy's form: one insert, listed or not; the mail worker mails a listed address. */
export function requestDataLink(
  deps: DataDeps,
  fields: Record<string, unknown>,
): Promise<DataLinkRequest> {
  return requestLink(deps, fields, 'data-link', (email) => deps.store.dataRequests.ask(email));
}

/** The file a data link downloads: its name, and its text. */
export interface DataFile {
  name: string;
  json: string;
}

/**
 * The file's content: the signup as stored, the mail, and each webhook event about the address
 * with the endpoint's name and the scheme and host of its URL (its path and query may be the
 * receiver's credential, as the console shows it: webhooks/shown.ts).
 */
export function dataFile(data: HeldData, at: number, siteUrl?: string): DataFile {
  const generatedAt = new Date(at).toISOString();
  const content = {
    about:
      'Everything the OrgNote waitlist held about this address when this file was made: the ' +
      'signup, the mail sent or waiting to be sent to it, and the webhook events about it.',
    site: siteUrl ?? null,
    generated_at: generatedAt,
    signup: data.signup,
    mail: data.mail,
    webhooks: data.webhooks.map((delivery) => ({
      endpoint: delivery.endpoint_name,
      endpoint_origin:
        delivery.endpoint_url === null ? null : endpointOrigin(delivery.endpoint_url),
      event: delivery.type,
      state: delivery.state,
      address_included: delivery.holds_address,
      created_at: delivery.created_at,
      delivered_at: delivery.delivered_at,
    })),
  };
  return {
    name: `orgnote-data-${generatedAt.slice(0, 10)}.json`,
    json: `${JSON.stringify(content, null, 2)}\n`,
  };
}

/**
 * The download of a data link's POST: the file, or why the link does nothing. `client`: the
 * requester's address, which the audit entry keeps as it keeps a console action's.
 */
export async function downloadData(
  { store, config, logger }: Pick<DataDeps, 'store' | 'config' | 'logger'>,
  token: string,
  client: string | undefined,
): Promise<{ ok: true; file: DataFile } | { ok: false; refusal: LinkRefusal }> {
  const downloaded = await store.dataRequests.download(token, { ...DATA_DOWNLOAD_AUDIT, client });
  logger.info(
    {
      event: 'data-download',
      ok: downloaded.ok,
      refusal: downloaded.ok ? undefined : downloaded.refusal,
    },
    downloaded.ok ? 'a data link downloaded its file' : 'data link refused',
  );
  if (!downloaded.ok) return downloaded;
  return { ok: true, file: dataFile(downloaded.data, downloaded.at, config.siteUrl) };
}
