// What operators see of an endpoint's URL (the console, `webhooks list`): its scheme and host.
// Its path and query may be the receiver's credential (a Zapier catch hook, a Slack or Discord
// token), and so may user:password; a per-endpoint host (a Pipedream source) is one too, which is
// why /privacy shows the endpoint's name and nothing of its URL (recipients.ts).

/** Scheme, host and port; '(not a URL)' for a stored URL that no longer parses. */
export function endpointOrigin(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.protocol}//${parsed.host}` : '(not a URL)';
}
