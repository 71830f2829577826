// Moved to webhooks/types.ts. Kept only for server/console/webhooks.tsx until its import names
// ../store/webhooks (the lead moves it when the branches meet).
export type { WebhookDelivery, WebhookEndpoint } from './webhooks/types';
