// `waitlist webhooks …`: the endpoints that receive the site's events (waitlist/webhooks.ts).
// A secret is printed once, at add and rotate, to stdout only; the audit log names the actor `cli`.
// An endpoint is shown by its name and the scheme and host of its URL, never its path or query.
import { CLI_ACTOR } from '../console/accounts';
import {
  addWebhook,
  eventTypes,
  graceText,
  listWebhooks,
  removeWebhook,
  renameWebhook,
  replayWebhook,
  rotateWebhook,
  ROTATION_GRACE_MAX_MS,
  ROTATION_GRACE_MS,
  testWebhook,
  webhookNameProblem,
} from '../waitlist/webhooks';
import { UNNAMED_RECIPIENT } from '../webhooks/recipients';
import { endpointOrigin } from '../webhooks/shown';
import { textTable } from './columns';
import { CommandError, UsageError, type CommandRow, type OptionRow } from './command-table';

export const WEBHOOK_OPTIONS = {
  name: {
    type: 'string',
    value: 'NAME',
    help: 'webhooks add, rename: what list, the console, the audit log and /privacy call it',
    check: (value: string) => {
      const problem = webhookNameProblem(value);
      if (problem) throw new UsageError(`--name: ${problem}`);
    },
  },
  events: {
    type: 'string',
    value: 'TYPES',
    help: 'webhooks add: only these events, comma-separated (e.g. invitation.sent); all by default',
    check: (value: string) => {
      const { events, unknown } = eventTypes(value);
      if (unknown.length > 0)
        throw new UsageError(`--events: unknown event: ${unknown.join(', ')}`);
      if (events.length === 0) throw new UsageError('--events: name at least one event');
    },
  },
  'with-address': {
    type: 'boolean',
    help: "webhooks add: the events carry the signup's address (/privacy says where it goes)",
  },
  grace: {
    type: 'string',
    value: 'DURATION',
    help: 'webhooks rotate: how long the old secret also signs (e.g. 30m, 2h, 0); 24h by default',
    check: (value: string) => void graceOf(value),
  },
  revoke: {
    type: 'boolean',
    help: 'webhooks rotate: the old secret stops signing at once (it leaked)',
  },
} as const satisfies Record<string, OptionRow>;

export interface WebhookOptions {
  name?: string;
  events?: string;
  'with-address'?: boolean;
  grace?: string;
  revoke?: boolean;
  /** webhooks replay: from this time on (checked by the shared --since option). */
  since?: string;
}

const CLI = { account: CLI_ACTOR };

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 24 * 3_600_000 };

/** `--grace`: 0, or a whole number of seconds, minutes, hours or days (30m, 2h), a week at most. */
function graceOf(text: string): number {
  const match = /^(?:0|(\d{1,6})([smhd]))$/.exec(text);
  if (!match) throw new UsageError(`--grace: not a duration: ${text} (e.g. 30m, 2h, 0)`);
  const ms = match[1] === undefined ? 0 : Number(match[1]) * UNIT_MS[match[2]];
  if (ms > ROTATION_GRACE_MAX_MS)
    throw new UsageError(`--grace: at most ${graceText(ROTATION_GRACE_MAX_MS)}: ${text}`);
  return ms;
}

/** How long the old secret signs on after `rotate`, as its options ask. */
function rotationGrace(options: WebhookOptions): number {
  if (options.revoke && options.grace !== undefined)
    throw new UsageError('webhooks rotate: --revoke or --grace, not both');
  if (options.revoke) return 0;
  return options.grace === undefined ? ROTATION_GRACE_MS : graceOf(options.grace);
}

const ONE_ENDPOINT = { args: '<id>', needs: 'an endpoint id', onlyOne: true } as const;

const listRow = (command: string): CommandRow<WebhookOptions> => ({
  name: command,
  help: 'webhook endpoints: id, name, scheme and host, events, whether they get addresses, state',
  async run(context, _args, _options, io) {
    const endpoints = await listWebhooks(context);
    await io.out(
      textTable(
        ['id', 'created_at', 'name', 'host', 'events', 'address', 'state'],
        endpoints.map((endpoint) => [
          endpoint.id,
          endpoint.createdAt,
          endpoint.name ?? '(none)',
          endpointOrigin(endpoint.url),
          endpoint.events.length === 0 ? 'all' : endpoint.events.join(','),
          endpoint.withAddress ? 'yes' : 'no',
          endpoint.disabledAt ? `disabled: ${endpoint.disabledReason ?? ''}` : 'enabled',
        ]),
      ),
    );
    await io.out(`${endpoints.length} endpoint(s)\n`);
    const unnamed = endpoints.filter((endpoint) => endpoint.name === null);
    if (unnamed.length > 0)
      await io.out(
        `${unnamed.length} without a name: waitlist webhooks rename <id> --name NAME gives one` +
          (unnamed.some((endpoint) => endpoint.withAddress)
            ? ` (/privacy calls those receiving addresses "${UNNAMED_RECIPIENT}")\n`
            : '\n'),
      );
    return 0;
  },
});

const unknownEndpoint = (id: string) =>
  new CommandError(`no webhook endpoint ${id} (see: waitlist webhooks list)`);

export const WEBHOOK_ROWS: CommandRow<WebhookOptions>[] = [
  listRow('webhooks'),
  {
    name: 'webhooks add',
    args: '<url> [--name NAME] [--events TYPES] [--with-address]',
    help: 'add an endpoint (https, public address); prints its id and its whsec_ secret, once',
    needs: 'a URL',
    onlyOne: true,
    store: 'writes',
    async run(context, [url], options, io) {
      const added = await addWebhook(context, CLI, {
        url,
        name: options.name,
        events: eventTypes(options.events ?? '').events,
        withAddress: options['with-address'] === true,
      });
      if (added.kind === 'needs-name')
        throw new UsageError('webhooks add --with-address needs --name NAME: /privacy shows it');
      if (added.kind === 'bad-name') throw new UsageError(`--name: ${added.problem}`);
      if (added.kind === 'bad-url') throw new CommandError(`${url}: ${added.problem}`);
      await io.out(
        `Added webhook endpoint ${added.id}. ` +
          `Its signing secret (shown once, keep it with the receiver):\n${added.secret}\n`,
      );
      return 0;
    },
  },
  listRow('webhooks list'),
  {
    name: 'webhooks rename',
    ...ONE_ENDPOINT,
    args: '<id> --name NAME',
    help: 'give an endpoint a name, or a new one (list, the console, audit log and /privacy)',
    store: 'writes',
    async run(context, [id], options, io) {
      if (options.name === undefined) throw new UsageError('webhooks rename needs --name NAME');
      const renamed = await renameWebhook(context, CLI, id, options.name);
      if (renamed.kind === 'unknown') throw unknownEndpoint(id);
      if (renamed.kind === 'bad-name') throw new UsageError(`--name: ${renamed.problem}`);
      await io.out(`Renamed webhook endpoint ${id} to ${JSON.stringify(options.name.trim())}\n`);
      return 0;
    },
  },
  {
    name: 'webhooks remove',
    ...ONE_ENDPOINT,
    help: 'delete an endpoint and its deliveries',
    store: 'writes',
    async run(context, [id], _options, io) {
      if (!(await removeWebhook(context, CLI, id))) throw unknownEndpoint(id);
      await io.out(`Removed webhook endpoint ${id}\n`);
      return 0;
    },
  },
  {
    name: 'webhooks rotate',
    ...ONE_ENDPOINT,
    args: '<id> [--grace DURATION | --revoke]',
    help: 'a new secret, printed once; the old one also signs for 24 hours, or as long as --grace',
    store: 'writes',
    async run(context, [id], options, io) {
      const graceMs = rotationGrace(options);
      const secret = await rotateWebhook(context, CLI, id, graceMs);
      if (secret === undefined) throw unknownEndpoint(id);
      const old =
        graceMs === 0
          ? 'the old one no longer signs'
          : `the old one also signs for ${graceText(graceMs)}`;
      await io.out(`New signing secret for ${id} (shown once; ${old}):\n${secret}\n`);
      return 0;
    },
  },
  {
    name: 'webhooks test',
    ...ONE_ENDPOINT,
    help: 'queue a webhook.test event for an endpoint; the running site sends it',
    store: 'writes',
    async run(context, [id], _options, io) {
      const delivery = await testWebhook(context, CLI, id);
      if (delivery === undefined) throw unknownEndpoint(id);
      await io.out(`Queued ${delivery} for ${id}; the running site sends it\n`);
      return 0;
    },
  },
  {
    name: 'webhooks replay',
    args: '<id> [--since DATE]',
    help:
      'send again the given-up deliveries (--since: all from DATE on), and re-enable the ' +
      'endpoint',
    needs: 'an endpoint id',
    onlyOne: true,
    store: 'writes',
    async run(context, [id], options, io) {
      const replayed = await replayWebhook(context, CLI, id, options.since);
      if (replayed === undefined) throw unknownEndpoint(id);
      const { queued, reenabled } = replayed;
      const deliveries = queued === 1 ? '1 delivery' : `${queued} deliveries`;
      await io.out(`Queued ${deliveries} again for ${id}; the running site sends them\n`);
      if (reenabled) await io.out(`The endpoint ${id} is enabled again\n`);
      return 0;
    },
  },
];
