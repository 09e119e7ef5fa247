// D27 webhook subscriptions and their delivery log: administrators only (401 anonymous, 403 any other role).
// The URL's syntax and the event types are validated with the other arguments; the SSRF check (DNS) runs after the
// permission check, so that only administrators make the service resolve names.
import { errorMessage } from '../../domain/errors.ts';
import { arg } from '../../core/input/args.ts';
import type { CommandContext } from '../../core/input/context.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParam, type ParamIssue } from '../../http/errors.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { formatAt } from '../../core/change-log/log.ts';
import { checkWebhookUrl, parseWebhookUrl, UnsafeUrlError } from '../../core/webhooks/url-safety.ts';
import {
  ALL_EVENTS,
  createWebhook,
  deleteWebhook,
  EVENT_TYPES,
  findWebhook,
  listWebhooks,
  toSubscription,
  unknownEventType,
  updateWebhook,
} from '../../core/webhooks/subscriptions.ts';
import {
  WebhookAttemptListSchema,
  WebhookCreatedSchema,
  WebhookDeletedSchema,
  WebhookListSchema,
  WebhookSchema,
} from './response.ts';

const isAdministrator = (ctx: RequestContext) => ctx.viewer?.role === 'administrator';
/** D27: only administrators manage subscriptions (401 anonymous, 403 anyone else). */
const ADMINISTRATORS_ONLY = { allows: isAdministrator, permission: isAdministrator };
const issue = (name: string, code: string, message: string): ParamIssue => ({ code, message, data: { param: name } });

const validUrl = (value: string, _ctx: CommandContext, name: string): true | ParamIssue => {
  try {
    parseWebhookUrl(value);
    return true;
  } catch (error) {
    return issue(name, 'rest_invalid_url', errorMessage(error));
  }
};

const validEvents = (value: string[], _ctx: CommandContext, name: string): true | ParamIssue => {
  if (value.length === 0) return issue(name, 'rest_invalid_events', 'events must name at least one event type (or *).');
  const unknown = unknownEventType(value);
  if (unknown !== undefined)
    return issue(
      name,
      'rest_invalid_events',
      `events: unknown event type "${unknown}"; use ${ALL_EVENTS} or ${EVENT_TYPES.join(', ')}.`,
    );
  return true;
};

const writeArgs = (mode: 'create' | 'update') => ({
  url:
    mode === 'create'
      ? arg.string({
          description: 'Where deliveries are POSTed: an http or https URL that does not resolve to a private address.',
          required: true,
          validate: validUrl,
          maxLength: 2000,
        })
      : arg.string({
          description: 'Where deliveries are POSTed: an http or https URL that does not resolve to a private address.',
          validate: validUrl,
          maxLength: 2000,
        }),
  events:
    mode === 'create'
      ? arg.stringList({
          description: `The event types to deliver: ${EVENT_TYPES.join(', ')}, or ${ALL_EVENTS} for all.`,
          required: true,
          validate: validEvents,
        })
      : arg.stringList({
          description: `The event types to deliver: ${EVENT_TYPES.join(', ')}, or ${ALL_EVENTS} for all.`,
          validate: validEvents,
        }),
  active:
    mode === 'create'
      ? arg.boolean({ description: 'Whether deliveries are made (false: paused).', default: true })
      : arg.boolean({
          description: 'Whether deliveries are made (false: paused; resuming starts from the latest change).',
        }),
  description: arg.string({ description: 'A note for administrators.', maxLength: 1000 }),
});

const idArg = { id: arg.integer({ description: 'The subscription id.', required: true, in: 'path' }) };

async function checkUrlSafety(ctx: RequestContext, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  try {
    await checkWebhookUrl(url, ctx.config.webhooks.allowPrivate);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw invalidParam('url', issue('url', 'rest_invalid_url', error.message));
    throw error;
  }
}

const notFound = () => new ApiError(404, 'rest_webhook_invalid_id', 'Invalid webhook subscription ID.');
const FORBIDDEN = {
  401: { description: 'Not logged in.' },
  403: { description: 'Only administrators manage webhooks.' },
};
const NOT_FOUND = { 404: { description: 'No such subscription.' } };
const now = (ctx: RequestContext) => ctx.now.toJSDate();

const list = endpoint({
  methods: ['GET'],
  summary: 'List webhook subscriptions',
  responses: {
    200: { description: 'Every subscription (secrets are never shown).', schema: WebhookListSchema },
    ...FORBIDDEN,
  },
  args: {},
  ...ADMINISTRATORS_ONLY,
  async handler(ctx) {
    return { body: (await listWebhooks(ctx.store.db)).map(toSubscription) };
  },
});

const create = endpoint({
  methods: ['POST'],
  summary: 'Create a webhook subscription',
  responses: {
    201: {
      description: 'Created; the answer carries the signing secret, shown this once.',
      schema: WebhookCreatedSchema,
    },
    400: {
      description:
        'Invalid url (not http(s), or resolving to a loopback, private, link-local or metadata address) or events (empty, unknown type).',
    },
    ...FORBIDDEN,
  },
  args: writeArgs('create'),
  ...ADMINISTRATORS_ONLY,
  async handler(ctx, params) {
    await checkUrlSafety(ctx, params.url);
    const { row, secret } = await createWebhook(
      ctx.store,
      {
        url: params.url!,
        events: params.events!,
        active: params.active ?? true,
        description: params.description ?? '',
      },
      now(ctx),
    );
    return {
      status: 201,
      headers: { Location: `${ctx.config.apiRoot}/webhooks/${row.id}` },
      body: { ...toSubscription(row), secret },
    };
  },
});

const get = endpoint({
  methods: ['GET'],
  summary: 'A webhook subscription',
  responses: {
    200: { description: 'The subscription (without its secret).', schema: WebhookSchema },
    ...FORBIDDEN,
    ...NOT_FOUND,
  },
  args: idArg,
  ...ADMINISTRATORS_ONLY,
  async handler(ctx, params) {
    const row = await findWebhook(ctx.store.db, params.id);
    if (!row) throw notFound();
    return { body: toSubscription(row) };
  },
});

const update = endpoint({
  methods: ['PATCH'],
  summary: 'Change a webhook subscription',
  responses: {
    200: { description: 'The subscription as changed.', schema: WebhookSchema },
    400: { description: 'Invalid url or events.' },
    ...FORBIDDEN,
    ...NOT_FOUND,
  },
  args: { ...idArg, ...writeArgs('update') },
  ...ADMINISTRATORS_ONLY,
  async handler(ctx, params) {
    await checkUrlSafety(ctx, params.url);
    const row = await updateWebhook(
      ctx.store,
      params.id,
      {
        url: params.url,
        events: params.events,
        active: params.active,
        description: params.description,
      },
      now(ctx),
    );
    if (!row) throw notFound();
    return { body: toSubscription(row) };
  },
});

const remove = endpoint({
  methods: ['DELETE'],
  summary: 'Delete a webhook subscription',
  responses: {
    200: { description: 'Deleted, with its queued deliveries and their log.', schema: WebhookDeletedSchema },
    ...FORBIDDEN,
    ...NOT_FOUND,
  },
  args: idArg,
  ...ADMINISTRATORS_ONLY,
  async handler(ctx, params) {
    const row = await deleteWebhook(ctx.store, params.id);
    if (!row) throw notFound();
    return { body: { deleted: true, previous: toSubscription(row) } };
  },
});

const deliveries = endpoint({
  methods: ['GET'],
  summary: 'Recent delivery attempts of a webhook subscription',
  responses: {
    200: { description: 'The most recent attempts, newest first.', schema: WebhookAttemptListSchema },
    ...FORBIDDEN,
    ...NOT_FOUND,
  },
  args: {
    ...idArg,
    per_page: arg.integer({
      description: 'At most this many attempts (default 50, at most 100).',
      validate: (value: number) => value >= 1,
    }),
  },
  ...ADMINISTRATORS_ONLY,
  async handler(ctx, params) {
    if (!(await findWebhook(ctx.store.db, params.id))) throw notFound();
    const rows = await ctx.store.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .select([
        'a.attempt',
        'a.attempted_utc',
        'a.succeeded',
        'a.response_status',
        'a.duration_ms',
        'a.error',
        'a.response_body',
        'd.msg_id',
        'd.event_type',
        'd.seq',
        'd.status',
        'd.next_attempt_ms',
      ])
      .where('a.webhook_id', '=', params.id)
      .orderBy('a.id', 'desc')
      .limit(Math.min(params.per_page ?? 50, 100))
      .execute();
    return {
      body: rows.map((row) => ({
        webhook_id: row.msg_id,
        type: row.event_type,
        seq: Number(row.seq),
        attempt: row.attempt,
        status: row.succeeded === 1 ? 'succeeded' : 'failed',
        delivery_status: row.status,
        response_code: row.response_status,
        duration_ms: row.duration_ms,
        error: row.error,
        response_body: row.response_body,
        attempted: row.attempted_utc,
        next_attempt: row.status === 'pending' ? formatAt(new Date(Number(row.next_attempt_ms))) : null,
      })),
    };
  },
});

export function webhookRoutes(): RouteGroup[] {
  return [
    { path: '/webhooks', pattern: '/webhooks', endpoints: [list, create] },
    { path: '/webhooks/:id(^\\d+$)', pattern: '/webhooks/(?P<id>\\d+)', endpoints: [get, update, remove] },
    { path: '/webhooks/:id(^\\d+$)/deliveries', pattern: '/webhooks/(?P<id>\\d+)/deliveries', endpoints: [deliveries] },
  ];
}
