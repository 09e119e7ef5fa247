import type { TSchema } from 'typebox';
import type { Config } from '../../config.ts';
import { documentedSchema, type Arg } from '../../core/input/args.ts';
import type { AnyEndpoint, Method, RouteGroup } from '../../http/routes.ts';
import { componentName, ErrorSchema } from '../../http/schemas.ts';

export const OPENAPI_VERSION = '3.1.0';

type Json = Record<string, unknown>;

/** A JSON object (not an array, not null). */
const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `/venues/:id(^\\d+$)` → `/venues/{id}`; the namespace root `''` → `/`. */
export function openApiPath(routerPath: string): string {
  const path = routerPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?/g, '{$1}');
  return path === '' ? '/' : path;
}

const pascal = (word: string) =>
  word
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

/** `GET /venues/{id}` → `getVenuesById`; `/venues/by-slug/{slug}` → `getVenuesBySlug`; the root → `getIndex`. */
export function operationId(method: Method, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const words = segments.map((segment, index) => {
    const parameter = /^\{(.+)\}$/.exec(segment)?.[1];
    if (parameter === undefined) return pascal(segment);
    return segments[index - 1] === `by-${parameter}` ? '' : `By${pascal(parameter)}`;
  });
  return method.toLowerCase() + (words.join('') || 'Index');
}

/** The first path segment names the tag; the root and `/doc` are "discovery". */
export const tagOf = (path: string) => {
  // `/events.ics` (D26) is documented with the events.
  const first = path
    .split('/')
    .filter(Boolean)[0]
    ?.replace(/\.ics$/, '');
  return first === undefined || first === 'doc' ? 'discovery' : first;
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  discovery: 'What this API offers: the namespace index and this document.',
  events: 'Events: when, where, who, how much.',
  venues: 'Places where events happen.',
  organizers: 'People and organisations that run events.',
  categories: 'Event categories (hierarchical).',
  tags: 'Event tags.',
  changes: 'Incremental sync (D24): list everything once, keep its X-Sync-Cursor, then ask what changed since.',
};

/**
 * Turns TypeBox schemas into plain OpenAPI schemas: TypeBox's own markers go, and every nested schema marked as a
 * component becomes a `$ref`, its definition collected once in `schemas`.
 */
export class ComponentCollector {
  readonly schemas: Json = {};
  private readonly inProgress = new Set<string>();
  private readonly seen = new WeakSet<object>();

  convert(value: unknown, root?: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.convert(item));
    if (value === null || typeof value !== 'object') return value;
    const name = componentName(value);
    if (name !== undefined && value !== root) {
      this.define(name, value);
      return { $ref: `#/components/schemas/${name}` };
    }
    const out: Json = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.convert(item);
    return out;
  }

  private define(name: string, schema: object): void {
    if (this.seen.has(schema) || this.inProgress.has(name)) return;
    this.seen.add(schema);
    this.inProgress.add(name);
    const definition = this.convert(schema, schema);
    this.inProgress.delete(name);
    if (!Object.hasOwn(this.schemas, name)) this.schemas[name] = definition;
    else if (JSON.stringify(definition) !== JSON.stringify(this.schemas[name])) {
      throw new Error(`Two different response schemas are both named ${name}.`);
    }
  }
}

const BODY_METHODS: readonly Method[] = ['POST', 'PUT', 'PATCH'];

/** D23: the header a create accepts (plugins/idempotency.ts), and the answers it adds. */
const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retried create safe: a repeat of the same request with the same key within 24 hours answers the first answer again (with `Idempotent-Replayed: true`) and creates nothing.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};
const IDEMPOTENCY_RESPONSES: Record<number, string> = {
  409: 'A request with this Idempotency-Key is still running (rest_idempotency_key_in_use).',
  422: 'This Idempotency-Key was used with a different request (rest_idempotency_key_mismatch).',
};

/** A body field's schema: what the argument accepts (Arg.openapi), with its description. */
const fieldSchema = (spec: Arg, collector: ComponentCollector): unknown => collector.convert(documentedSchema(spec));

function parameter(name: string, spec: Arg, location: 'path' | 'query', collector: ComponentCollector): Json {
  // The parameter carries the description; a named schema is referenced directly.
  // An argument that accepts nothing (`false`) has no keywords to show.
  const converted = collector.convert(documentedSchema(spec));
  const { description, allOf, ...schema } = isJson(converted) ? converted : {};
  const named = Array.isArray(allOf) && allOf.length === 1 && isJson(allOf[0]) ? allOf[0] : undefined;
  const accepted: Json = named === undefined ? schema : { ...named, ...schema };
  const described: Json = {
    name,
    in: location,
    description: description ?? '',
    required: location === 'path' || spec.required,
    schema: accepted,
  };
  if (accepted.type === 'array') {
    // `a=1&a=2` (what OpenAPI clients send for `explode: true`), `a=1,2` and `a[]=1&a[]=2` are all read as the list.
    described.description = `${described.description} Several values: repeat the key (${name}=a&${name}=b), or separate them with commas (${name}=a,b); ${name}[]=a&${name}[]=b works too.`;
    Object.assign(described, { style: 'form', explode: true });
  }
  return described;
}

/** JSON and URL-encoded forms carry the same fields (query-string values are accepted as well). */
function requestBody(fields: Array<[string, Arg]>, collector: ComponentCollector): Json | undefined {
  if (fields.length === 0) return undefined;
  const required = fields.filter(([, spec]) => spec.required).map(([name]) => name);
  const schema: Json = {
    type: 'object',
    properties: Object.fromEntries(fields.map(([name, spec]) => [name, fieldSchema(spec, collector)])),
  };
  if (required.length > 0) schema.required = required;
  return {
    required: required.length > 0,
    content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
  };
}

function responses(definition: AnyEndpoint, collector: ComponentCollector): Json {
  const out: Json = {};
  const jsonContent = (schema: TSchema) => ({ 'application/json': { schema: collector.convert(schema) } });
  for (const [status, doc] of Object.entries(definition.responses)) {
    const isError = Number(status) >= 400;
    const schema = doc.schema ?? (isError ? ErrorSchema : undefined);
    if (doc.mediaType !== undefined)
      out[status] = { description: doc.description, content: { [doc.mediaType]: { schema: { type: 'string' } } } };
    else
      out[status] = schema
        ? { description: doc.description, content: jsonContent(schema) }
        : { description: doc.description };
  }
  if (definition.acceptsIdempotencyKey) {
    for (const [status, description] of Object.entries(IDEMPOTENCY_RESPONSES))
      out[status] ??= { description, content: jsonContent(ErrorSchema) };
  }
  out.default = {
    description:
      'Any other error, in the same envelope: 401 for bad credentials, 413 for a body over 1 MiB, 415 for an unsupported content type, 500 when something breaks.',
    content: jsonContent(ErrorSchema),
  };
  return out;
}

function operation(
  group: RouteGroup,
  definition: AnyEndpoint,
  method: Method,
  path: string,
  collector: ComponentCollector,
): Json {
  const args = Object.entries<Arg>(definition.args);
  const inPath = args.filter(([, spec]) => spec.location === 'path');
  const others = args.filter(([, spec]) => spec.location !== 'path');
  const hasBody = BODY_METHODS.includes(method);
  const parameters = [
    ...inPath.map(([name, spec]) => parameter(name, spec, 'path', collector)),
    ...(hasBody ? [] : others.map(([name, spec]) => parameter(name, spec, 'query', collector))),
    ...(definition.acceptsIdempotencyKey ? [IDEMPOTENCY_KEY_PARAMETER] : []),
  ];
  const op: Json = { tags: [tagOf(group.path)], summary: definition.summary, operationId: operationId(method, path) };
  if (parameters.length > 0) op.parameters = parameters;
  const body = hasBody ? requestBody(others, collector) : undefined;
  if (body) op.requestBody = body;
  op.responses = responses(definition, collector);
  if (definition.permission) op.security = [{ basicAuth: [] }];
  return op;
}

const DESCRIPTION = [
  'Events, venues, organizers, categories and tags, wire-compatible with the REST API of a widely used WordPress events plugin.',
  '',
  '* Reading is public; writing needs HTTP Basic authentication with a user name and an application password. Bad credentials are always a 401, even on public routes.',
  '* Arguments may come from the query string, a URL-encoded form or a JSON body (JSON wins, then the form, then the query string).',
  '* Timestamps are `YYYY-MM-DD HH:MM:SS`; every `*_utc` twin holds the same instant in UTC.',
  '* Dates sent may take more forms (`DateInput`): `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, ISO 8601 with or without an offset, a Unix timestamp, or a relative form such as `tomorrow 9am`.',
  '* A list in the query string is a repeated key (`categories=1&categories=2`), comma-separated (`categories=1,2`) or bracketed (`categories[]=1&categories[]=2`).',
  '* Errors are `{code, message, data: {status, …}}`. Invalid arguments (400) are reported before permission problems (401/403).',
  '* Lists carry their totals in the body and in `X-TEC-Total`/`X-TEC-TotalPages` (also `X-WP-Total`/`X-WP-TotalPages` and a `Link` header).',
  '* Lists also send `X-Sync-Cursor`: give it to `GET /changes?since=…` to learn, page by page, what changed after that list was read (D24).',
].join('\n');

/** §14: the whole API as OpenAPI 3.1, generated from the same route table and schemas that serve and check requests. */
export function openApiDocument(groups: readonly RouteGroup[], config: Config): Json {
  const collector = new ComponentCollector();
  const paths: Json = {};
  const tags: string[] = [];
  for (const group of groups) {
    const path = openApiPath(group.path);
    const item: Json = {};
    for (const definition of group.endpoints) {
      for (const method of definition.methods)
        item[method.toLowerCase()] = operation(group, definition, method, path, collector);
    }
    paths[path] = item;
    if (!tags.includes(tagOf(group.path))) tags.push(tagOf(group.path));
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: 'Calendar Events REST API', version: '1.0.0', description: DESCRIPTION },
    components: {
      schemas: collector.schemas,
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: "A user name and one of that user's application passwords.",
        },
      },
    },
    servers: [{ url: config.apiRoot, description: 'This service.' }],
    security: [{}, { basicAuth: [] }],
    tags: tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
    paths,
  };
}
