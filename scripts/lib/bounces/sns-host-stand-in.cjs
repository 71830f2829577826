// Preloaded into the built server (node --require) by test/server/bounces/built-server.test.ts
// and `npm run bench:bounces`: the one part of a provider that cannot run here, SNS's certificate
// host. A fetch of an https URL on an sns.<region>.amazonaws.com host is answered from here: a
// .pem path with the certificate in the file SNS_STAND_IN_CERTIFICATE, a ConfirmSubscription
// visit with SNS's answer (and a line appended to SNS_STAND_IN_VISITS, so the caller can see it
// happened). Every other fetch goes out as it would.
'use strict';
const fs = require('node:fs');

const realFetch = globalThis.fetch;
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com$/;

globalThis.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.protocol !== 'https:' || !SNS_HOST.test(url.hostname)) return realFetch(input, init);
  fs.appendFileSync(process.env.SNS_STAND_IN_VISITS, `${url.href}\n`);
  if (url.pathname.endsWith('.pem'))
    return new Response(fs.readFileSync(process.env.SNS_STAND_IN_CERTIFICATE, 'utf8'));
  if (url.searchParams.get('Action') === 'ConfirmSubscription')
    return new Response(
      '<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">' +
        '<ConfirmSubscriptionResult><SubscriptionArn>' +
        `${url.searchParams.get('TopicArn')}:c9135db0-26c4-47ec-8998-413945fb5a96` +
        '</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>',
    );
  return new Response('Not found', { status: 404 });
};
