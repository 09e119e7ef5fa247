import Type, { type TSchema } from 'typebox';
import type { FieldIssue } from '../../domain/errors.ts';
import type { CommandContext } from './context.ts';
import { coerceTruthy, toList } from '../../domain/lists.ts';
import { MAX_SLUG_LENGTH } from '../../domain/slugs.ts';
import { componentName } from './schema-names.ts';

/**
 * A route argument as WordPress declares one: a JSON schema (type, items, format, default, description), whether it is
 * required, and optionally a named validator for what a schema cannot say (store lookups, "non-empty string", dates).
 * The schema drives coercion here and the discovery index and OpenAPI document elsewhere: it is never written twice.
 */
export interface Arg<T = unknown, Present extends boolean = boolean> {
  readonly schema: TSchema;
  /**
   * What the argument accepts, precisely, for the OpenAPI document only (`documentedSchema`): the discovery index
   * shows `schema`, as the reference does, and a generated client needs more than that (a date is a string or a
   * Unix timestamp, a venue an id, a list or an object…). `false`: no value is accepted.
   */
  readonly openapi?: TSchema | false;
  readonly required: boolean;
  readonly location: ArgLocation;
  // biome-ignore lint/suspicious/noExplicitAny: an argument's validator takes its own coerced type, erased in a record of arguments
  readonly validate?: Validator<any>;
  /** D31: a bound on the raw value (list length…), checked for every argument before any validator runs. */
  readonly limit?: Limit;
  /** A default that depends on the clock: shown in discovery, applied by the handler (WordPress computes it per request). */
  readonly documentedDefault?: (ctx: CommandContext) => unknown;
  readonly coerce: (raw: unknown, name: string) => Coerced<T>;
  /** Phantom marker for typing the handler's parameters. */
  readonly __present?: Present;
}

export type ArgLocation = 'path' | 'query' | 'body';
export type Coerced<T> = { ok: true; value: T } | { ok: false; issue: FieldIssue };
export type ValidatorResult = boolean | FieldIssue;
export type Validator<T> = (value: T, ctx: CommandContext, name: string) => ValidatorResult | Promise<ValidatorResult>;
/** D31: undefined when the raw value is within bounds; cheap and synchronous, it runs before any work. */
export type Limit = (raw: unknown, ctx: CommandContext, name: string) => FieldIssue | undefined;

// biome-ignore lint/suspicious/noExplicitAny: a record of arguments of different value types (ArgValues recovers each)
export type Args = Record<string, Arg<any, boolean>>;
export type ArgValues<A extends Args> = {
  [K in keyof A]: A[K] extends Arg<infer T, infer P> ? (P extends true ? T : T | undefined) : never;
};

interface ArgOptions<T> {
  description: string;
  required?: boolean;
  default?: unknown;
  documentedDefault?: (ctx: CommandContext) => unknown;
  validate?: Validator<T>;
  limit?: Limit;
  in?: ArgLocation;
  format?: string;
  enum?: readonly string[];
  maxLength?: number;
  /** The OpenAPI document's schema for the argument, when `schema` (the discovery index's) says less (Arg.openapi). */
  openapi?: TSchema | false;
}

type PresentIf<O> = O extends { required: true } ? true : O extends { default: NonNullable<unknown> } ? true : false;

const ok = <T>(value: T): Coerced<T> => ({ ok: true, value });
/** A value of the wrong type (`rest_invalid_type`). */
export const typeIssue = (name: string, type: string): FieldIssue => ({
  code: 'rest_invalid_type',
  message: `${name} is not of type ${type}.`,
  data: { param: name },
});

const fail = <T>(name: string, type: string): Coerced<T> => ({ ok: false, issue: typeIssue(name, type) });

function schemaOptions(
  options: Pick<ArgOptions<unknown>, 'description' | 'default' | 'format' | 'enum' | 'maxLength'>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { description: options.description };
  if (options.default !== undefined) out.default = options.default;
  if (options.format !== undefined) out.format = options.format;
  if (options.enum !== undefined) out.enum = [...options.enum];
  if (options.maxLength !== undefined) out.maxLength = options.maxLength;
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: the options of any argument type; `T` is the one built
function build<T, O extends ArgOptions<any>>(
  schema: TSchema,
  options: O,
  coerce: (raw: unknown, name: string) => Coerced<T>,
): Arg<T, PresentIf<O>> {
  return {
    schema,
    required: options.required ?? false,
    location: options.in ?? 'query',
    validate: options.validate,
    limit: options.limit,
    documentedDefault: options.documentedDefault,
    openapi: options.openapi,
    coerce,
  };
}

/**
 * A keyword of an argument's JSON schema (`default`, `type`, `description`…), as written: TypeBox types a schema as an
 * empty interface, whatever keywords it holds.
 */
export const schemaKeyword = (schema: TSchema, keyword: string): unknown => Reflect.get(schema, keyword);

/**
 * The schema the OpenAPI document gives an argument: its `openapi` schema, with the index's description and default,
 * or else its `schema`. A named schema (a component, published once) keeps its name: it is referenced through `allOf`.
 */
export function documentedSchema(spec: Arg): TSchema | false {
  if (spec.openapi === undefined || spec.openapi === false) return spec.openapi ?? spec.schema;
  const description = schemaKeyword(spec.schema, 'description');
  const fallback = schemaKeyword(spec.schema, 'default');
  const shown: Record<string, unknown> = {};
  if (description !== undefined) shown.description = description;
  if (fallback !== undefined) shown.default = fallback;
  return Type.Unsafe(
    componentName(spec.openapi) === undefined ? { ...spec.openapi, ...shown } : { ...shown, allOf: [spec.openapi] },
  );
}

/** An object whose properties are these arguments, as the OpenAPI document gives them (an inline venue…). */
export function documentedObject(args: Args, options: Record<string, unknown> = {}): TSchema {
  const entries = Object.entries(args);
  const required = entries.filter(([, spec]) => spec.required).map(([name]) => name);
  return Type.Unsafe({
    type: 'object',
    properties: Object.fromEntries(entries.map(([name, spec]) => [name, documentedSchema(spec)])),
    ...(required.length > 0 ? { required } : {}),
    ...options,
  });
}

/** D31: `description` and `excerpt` hold at most 256 KiB (UTF-8), a slug 200 characters, every other text 10 KiB. */
const MAX_LONG_TEXT_BYTES = 256 * 1024;
const MAX_TEXT_BYTES = 10 * 1024;
const LONG_TEXT_FIELDS = new Set(['description', 'excerpt']);

/** D31: the bound of the text argument `name`, or undefined when `value` is within it. */
export function textLimitIssue(name: string, value: string): FieldIssue | undefined {
  if (name === 'slug') {
    return value.length > MAX_SLUG_LENGTH
      ? {
          code: 'rest_too_long',
          message: `${name} must be at most ${MAX_SLUG_LENGTH} characters long.`,
          data: { param: name, max_length: MAX_SLUG_LENGTH },
        }
      : undefined;
  }
  const max = LONG_TEXT_FIELDS.has(name) ? MAX_LONG_TEXT_BYTES : MAX_TEXT_BYTES;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most values need no counting at all.
  if (value.length * 3 <= max || Buffer.byteLength(value, 'utf8') <= max) return undefined;
  return {
    code: 'rest_too_long',
    message: `${name} must be at most ${max / 1024} KiB (${max} bytes of UTF-8) long.`,
    data: { param: name, max_bytes: max },
  };
}

/** How many items a list argument names (a CSV string, a scalar, or an array of those or of objects), without building it. */
function countListItems(raw: unknown): number {
  if (typeof raw === 'string') {
    let count = 0;
    for (const item of raw.split(',')) if (item.trim() !== '') count++;
    return count;
  }
  if (Array.isArray(raw))
    return raw.reduce<number>((sum, item) => sum + (typeof item === 'string' ? countListItems(item) : 1), 0);
  return raw === undefined || raw === null ? 0 : 1;
}

/** D31: a list argument naming at most `max(config)` items (`rest_too_many_items` beyond). */
export const maxItems =
  (max: (config: CommandContext['config']) => number, variable: string): Limit =>
  (raw, ctx, name) => {
    const limit = max(ctx.config);
    const count = countListItems(raw);
    if (count <= limit) return undefined;
    return {
      code: 'rest_too_many_items',
      message: `${name} must list at most ${limit} items (${variable}), got ${count}.`,
      data: { param: name, max_items: limit },
    };
  };

/** D31: the list filters (`include`, `exclude`, `venue`, `organizer`, `categories`, `tags`) name at most MAX_FILTER_IDS items. */
const maxFilterIds = maxItems((config) => config.limits.filterIds, 'MAX_FILTER_IDS');

const INTEGER = /^\s*[+-]?\d+\s*$/;
const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export function coerceBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 1 || raw === 0) return raw === 1;
  if (typeof raw !== 'string') return undefined;
  switch (raw.trim().toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
    case '':
      return false;
    default:
      return undefined;
  }
}

export function coerceInteger(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
  if (typeof raw !== 'string' || !INTEGER.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}

export function coerceNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || !NUMBER.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

/** What `tribe_is_truthy` reads (domain/lists.ts coerceTruthy). */
const TRUTHY_INPUT = Type.Unsafe({
  oneOf: [
    { type: 'boolean' },
    { type: 'string', description: 'true, 1, yes or on (any case) for true; any other text for false.' },
    { type: 'number', description: '0 for false, any other number for true.' },
  ],
});

export const arg = {
  integer<const O extends ArgOptions<number>>(options: O) {
    return build<number, O>(Type.Integer(schemaOptions(options)), options, (raw, name) => {
      const value = coerceInteger(raw);
      return value === undefined ? fail(name, 'integer') : ok(value);
    });
  },
  number<const O extends ArgOptions<number>>(options: O) {
    return build<number, O>(Type.Number(schemaOptions(options)), options, (raw, name) => {
      const value = coerceNumber(raw);
      return value === undefined ? fail(name, 'number') : ok(value);
    });
  },
  boolean<const O extends ArgOptions<boolean>>(options: O) {
    return build<boolean, O>(Type.Boolean(schemaOptions(options)), options, (raw, name) => {
      const value = coerceBoolean(raw);
      return value === undefined ? fail(name, 'boolean') : ok(value);
    });
  },
  /** A string read with `tribe_is_truthy` (`has_events`, `only_with_upcoming`, `strict_dates`); booleans and numbers too. */
  truthy<const O extends ArgOptions<boolean>>(options: O) {
    return build<boolean, O>(
      Type.String(schemaOptions(options)),
      { openapi: TRUTHY_INPUT, ...options },
      (raw, name) => {
        const value = coerceTruthy(raw);
        return value === undefined ? fail(name, 'string') : ok(value);
      },
    );
  },
  string<const O extends ArgOptions<string>>(options: O) {
    return build<string, O>(Type.String(schemaOptions(options)), options, (raw, name) => {
      if (typeof raw !== 'string') return fail(name, 'string');
      if (options.maxLength !== undefined && raw.length > options.maxLength) {
        return {
          ok: false,
          issue: {
            code: 'rest_too_long',
            message: `${name} must be at most ${options.maxLength} characters long.`,
            data: { param: name },
          },
        };
      }
      return ok(raw);
    });
  },
  /** Comma-separated or array list of integers; at most MAX_FILTER_IDS of them unless `limit` says otherwise (D31). */
  integerList<const O extends ArgOptions<number[]>>(options: O) {
    return build<number[], O>(
      Type.Array(Type.Integer(), schemaOptions(options)),
      { limit: maxFilterIds, ...options },
      (raw, name) => {
        const items = toList(raw);
        const values = items?.map(coerceInteger);
        if (!values?.every((value) => value !== undefined)) return fail(name, 'array');
        return ok(values);
      },
    );
  },
  /** Comma-separated or array list of strings (ids or slugs); at most MAX_FILTER_IDS of them unless `limit` says otherwise. */
  stringList<const O extends ArgOptions<string[]>>(options: O) {
    return build<string[], O>(
      Type.Array(Type.String(), schemaOptions(options)),
      { limit: maxFilterIds, ...options },
      (raw, name) => {
        const items = toList(raw);
        return items === undefined ? fail(name, 'array') : ok(items);
      },
    );
  },
  /** Accepted as sent (a scalar, list or object); the validator and handler decide. */
  any<const O extends ArgOptions<unknown>>(options: O & { schema?: TSchema }) {
    return build<unknown, O>(options.schema ?? Type.Unknown(schemaOptions(options)), options, (raw) => ok(raw));
  },
};
