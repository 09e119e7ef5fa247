import type { TSchema } from 'typebox';
import { textLimitIssue, type Arg, type Args, type ArgValues } from './args.ts';
import type { RequestContext } from './context.ts';
import { forbidden, invalidParams, missingParams, type ParamIssue } from './errors.ts';
import { hasParam, type ParamMap } from './params.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a handler answers; plugins/reply.ts turns it into bytes, the same way whether or not the read cache keeps it.
 * - JSON (the API's contract shape): `body` is serialised and sent as `application/json; charset=UTF-8`;
 * - any other representation (iCalendar, HTML, ...): `payload` is sent as it is, under `type`;
 * - no body at all (304 Not Modified, 204 No Content): only the status and the headers.
 */
export type Reply = JsonReply | RawReply | EmptyReply;

interface ReplyHead {
  /** 200 when left out. */
  status?: number;
  headers?: Record<string, string>;
}

interface JsonReply extends ReplyHead {
  body: unknown;
}

interface RawReply extends ReplyHead {
  /** The full Content-Type, charset included, e.g. `text/calendar; charset=utf-8`. */
  type: string;
  payload: string | Buffer;
}

interface EmptyReply extends ReplyHead {
  status: 204 | 304;
  body?: never;
  payload?: never;
}

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
  /** A body that is not JSON (e.g. `text/calendar`): documented under that media type as a string. */
  mediaType?: string;
}

export interface Endpoint<A extends Args = Args> {
  methods: readonly Method[];
  args: A;
  /** One line for the OpenAPI document. */
  summary: string;
  /** Documented responses by status code (the OpenAPI document and the contract tests read these). */
  responses: Record<number, ResponseDoc>;
  /**
   * The end of step 4: checks across arguments that no single validator can make (e.g. coordinates sent as a pair).
   * It throws an `ApiError` (400) and runs before the permission check, as validation does.
   */
  check?: (ctx: RequestContext, params: ArgValues<A>) => void | Promise<void>;
  /** Step 6 of the check order: false answers 401 for anonymous callers and 403 otherwise. */
  permission?: (ctx: RequestContext, params: ArgValues<A>) => boolean | Promise<boolean>;
  /** Whether the method belongs in this caller's `Allow` header (a cheap, record-independent check). */
  allows?: (ctx: RequestContext) => boolean;
  /** D23: a create that accepts `Idempotency-Key` (plugins/idempotency.ts runs it at most once per key). */
  acceptsIdempotencyKey?: boolean;
  handler: (ctx: RequestContext, params: ArgValues<A>, raw: ParamMap) => Promise<Reply>;
}

export interface RouteGroup {
  /** The path under the namespace, in the router's syntax, e.g. `/venues/:id(^\\d+$)`. */
  path: string;
  /** The discovery key's regex form, e.g. `/venues/(?P<id>\d+)`. */
  pattern: string;
  endpoints: Endpoint<any>[];
}

export const endpoint = <A extends Args>(definition: Endpoint<A>): Endpoint<A> => definition;

/** Whether any string in a parameter's value (object keys included) passes `test`. */
function someText(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((item) => someText(item, test));
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => test(key) || someText(item, test));
  return false;
}

/** PostgreSQL text cannot hold U+0000, and no parameter has a use for it: such a value is invalid, never a 500. */
const containsNulCharacter = (value: unknown) => someText(value, (text) => text.includes('\u0000'));

/** D33: a UTF-16 surrogate without its pair is no text; JSON's `"\ud800"` would otherwise be stored as U+FFFD. */
const containsLoneSurrogate = (value: unknown) => someText(value, (text) => !text.isWellFormed());

const loneSurrogateIssue = (name: string): ParamIssue => ({
  code: 'rest_invalid_text',
  message: `${name} contains a lone UTF-16 surrogate (U+D800–U+DFFF without its pair), which is not text.`,
  data: { param: name },
});

/** D31: the longest string a text argument (or a list of them) holds, as the bound of its name says. */
function textIssue(name: string, value: unknown): ParamIssue | undefined {
  if (typeof value === 'string') return textLimitIssue(name, value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const issue = typeof item === 'string' ? textLimitIssue(name, item) : undefined;
      if (issue) return issue;
    }
  }
  return undefined;
}

/**
 * D31/D33, before any validator does any work: the bounds of every sent argument (list lengths, text sizes), then
 * characters no text may hold. Inline objects (an event's venue) are bounded by their own arguments when read.
 */
function checkBounds(entries: Array<[string, Arg]>, raw: ParamMap, ctx: RequestContext): void {
  const failures: Record<string, ParamIssue> = {};
  for (const [name, spec] of entries) {
    if (!hasParam(raw, name)) continue;
    const input = raw[name];
    const issue = spec.limit?.(input, ctx, name) ?? (spec.location === 'path' ? undefined : textIssue(name, input));
    if (issue) failures[name] = issue;
    else if (containsLoneSurrogate(input)) failures[name] = loneSurrogateIssue(name);
  }
  if (Object.keys(failures).length > 0) throw invalidParams(failures);
}

/**
 * Steps 3–5 of the WordPress check order: missing required parameters, then the named validators, then type
 * coercion of the rest. Each step reports every failing parameter at once.
 */
export async function processArgs<A extends Args>(args: A, raw: ParamMap, ctx: RequestContext): Promise<ArgValues<A>> {
  const entries = Object.entries(args) as Array<[string, Arg]>;

  const missing = entries.filter(([name, spec]) => spec.required && !hasParam(raw, name)).map(([name]) => name);
  if (missing.length > 0) throw missingParams(missing);
  checkBounds(entries, raw, ctx);

  const values: Record<string, unknown> = {};
  const validationFailures: Record<string, ParamIssue | null> = {};
  const typeFailures: Record<string, ParamIssue> = {};

  for (const [name, spec] of entries) {
    const present = hasParam(raw, name);
    const input = present ? raw[name] : (spec.schema as { default?: unknown }).default;
    if (input === undefined) continue;
    if (containsNulCharacter(input)) {
      validationFailures[name] = null;
      continue;
    }
    const coerced = spec.coerce(input, name);
    if (spec.validate) {
      if (!coerced.ok) {
        validationFailures[name] = null;
        continue;
      }
      const verdict = await spec.validate(coerced.value, ctx, name);
      if (verdict !== true) {
        validationFailures[name] = verdict === false ? null : verdict;
        continue;
      }
    } else if (!coerced.ok) {
      typeFailures[name] = coerced.issue;
      continue;
    }
    values[name] = coerced.value;
  }

  if (Object.keys(validationFailures).length > 0) throw invalidParams(validationFailures);
  if (Object.keys(typeFailures).length > 0) throw invalidParams(typeFailures);
  return values as ArgValues<A>;
}

export async function runEndpoint(definition: Endpoint<any>, raw: ParamMap, ctx: RequestContext): Promise<Reply> {
  const params = await processArgs(definition.args, raw, ctx);
  await definition.check?.(ctx, params);
  if (definition.permission && !(await definition.permission(ctx, params))) throw forbidden(ctx.viewer !== null);
  return definition.handler(ctx, params, raw);
}

/** The methods this caller may use on a route, in the order the endpoints declare them. */
export function allowedMethods(group: RouteGroup, ctx: RequestContext): Method[] {
  return group.endpoints
    .filter((candidate) => (candidate.allows ? candidate.allows(ctx) : candidate.methods.includes('GET') || ctx.viewer !== null))
    .flatMap((candidate) => [...candidate.methods]);
}
