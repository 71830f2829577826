// Which providers' routes are on: one endpoint for each provider whose setting is there, made by
// its module from that setting (docs/operating.md "Bounces and complaints").
import type { Config } from '../config';
import { mailgunEndpoint } from './mailgun';
import type { BounceProvider, ProviderEndpoint } from './notices';
import { postmarkEndpoint } from './postmark';
import { resendEndpoint } from './resend';
import { sendgridEndpoint } from './sendgrid';
import { sesEndpoint, type FetchText } from './ses';

type BounceSettings = Pick<
  Config,
  | 'bounceSesTopicArns'
  | 'bouncePostmarkAuth'
  | 'bounceSendgridPublicKey'
  | 'bounceMailgunSigningKey'
  | 'bounceResendSecret'
>;

export function configuredEndpoints(
  config: BounceSettings,
  { fetchText }: { fetchText?: FetchText } = {},
): ReadonlyMap<BounceProvider, ProviderEndpoint> {
  const endpoints: ProviderEndpoint[] = [];
  if (config.bounceSesTopicArns?.length)
    endpoints.push(sesEndpoint({ topicArns: config.bounceSesTopicArns, fetchText }));
  if (config.bouncePostmarkAuth)
    endpoints.push(postmarkEndpoint({ credentials: config.bouncePostmarkAuth }));
  if (config.bounceSendgridPublicKey)
    endpoints.push(sendgridEndpoint({ publicKey: config.bounceSendgridPublicKey }));
  if (config.bounceMailgunSigningKey)
    endpoints.push(mailgunEndpoint({ signingKey: config.bounceMailgunSigningKey }));
  if (config.bounceResendSecret)
    endpoints.push(resendEndpoint({ secret: config.bounceResendSecret }));
  return new Map(endpoints.map((endpoint) => [endpoint.provider, endpoint]));
}
