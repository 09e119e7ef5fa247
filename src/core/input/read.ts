// Raw input read into a command's typed values, as WordPress reads route arguments (its check order, its coercions),
// by every surface alike: the HTTP edge (http/routes.ts processArgs), the .ics import, the CLI. Failures are the core's
// field errors (MissingFields, InvalidFields), which each surface reports in its own way.
import { InvalidFields, MissingFields, type FieldIssue } from '../../domain/errors.ts';
import { schemaKeyword, textLimitIssue, type Arg, type Args, type ArgValues } from './args.ts';
import type { CommandContext } from './context.ts';
import { hasParam, RepeatedValues, type ParamMap } from './params.ts';

/** Whether any string in a parameter's value (object keys included) passes `test`. */
function someText(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((item) => someText(item, test));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([key, item]) => test(key) || someText(item, test));
  return false;
}

/** PostgreSQL text cannot hold U+0000, and no parameter has a use for it: such a value is invalid, never a 500. */
const containsNulCharacter = (value: unknown) => someText(value, (text) => text.includes('\u0000'));

/** D33: a UTF-16 surrogate without its pair is no text; JSON's `"\ud800"` would otherwise be stored as U+FFFD. */
const containsLoneSurrogate = (value: unknown) => someText(value, (text) => !text.isWellFormed());

const loneSurrogateIssue = (name: string): FieldIssue => ({
  code: 'rest_invalid_text',
  message: `${name} contains a lone UTF-16 surrogate (U+D800–U+DFFF without its pair), which is not text.`,
  data: { param: name },
});

/** D31: the longest string a text argument (or a list of them) holds, as the bound of its name says. */
function textIssue(name: string, value: unknown): FieldIssue | undefined {
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
function checkBounds(entries: Array<[string, Arg]>, raw: ParamMap, ctx: CommandContext): void {
  const failures: Record<string, FieldIssue> = {};
  for (const [name, spec] of entries) {
    if (!hasParam(raw, name)) continue;
    const input = raw[name];
    const issue = spec.limit?.(input, ctx, name) ?? (spec.location === 'path' ? undefined : textIssue(name, input));
    if (issue) failures[name] = issue;
    else if (containsLoneSurrogate(input)) failures[name] = loneSurrogateIssue(name);
  }
  if (Object.keys(failures).length > 0) throw new InvalidFields(failures);
}

/**
 * Steps 3–5 of the WordPress check order: missing required parameters, then the named validators, then type
 * coercion of the rest. Each step reports every failing parameter at once.
 */
export async function readArgs<A extends Args>(args: A, sent: ParamMap, ctx: CommandContext): Promise<ArgValues<A>> {
  const raw = withRepeatedValues(args, sent);
  const entries: Array<[string, Arg]> = Object.entries(args);

  const missing = entries.filter(([name, spec]) => spec.required && !hasParam(raw, name)).map(([name]) => name);
  if (missing.length > 0) throw new MissingFields(missing);
  checkBounds(entries, raw, ctx);

  const values: Record<string, unknown> = {};
  const validationFailures: Record<string, FieldIssue | null> = {};
  const typeFailures: Record<string, FieldIssue> = {};

  for (const [name, spec] of entries) {
    const present = hasParam(raw, name);
    const input = present ? raw[name] : schemaKeyword(spec.schema, 'default');
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

  if (Object.keys(validationFailures).length > 0) throw new InvalidFields(validationFailures);
  if (Object.keys(typeFailures).length > 0) throw new InvalidFields(typeFailures);
  // Each value is what its own argument's `coerce` made of the input, the type ArgValues<A> gives that name; a
  // record built key by key cannot show the compiler that.
  return values as ArgValues<A>;
}

const isListArg = (spec: Arg | undefined) => spec !== undefined && schemaKeyword(spec.schema, 'type') === 'array';

/**
 * `sent` with every key sent more than once (RepeatedValues) read as the argument it names takes it: a list argument
 * all the values, any other (or an undeclared key) the last.
 */
export function withRepeatedValues(args: Args, sent: ParamMap): ParamMap {
  let raw: ParamMap | undefined;
  for (const name of Object.keys(sent)) {
    const value = sent[name];
    if (!(value instanceof RepeatedValues)) continue;
    if (raw === undefined) {
      // Without a prototype, so that a sent key such as `constructor` reads only what was sent.
      const copy: ParamMap = Object.create(null);
      raw = Object.assign(copy, sent);
    }
    raw[name] = isListArg(args[name]) ? [...value.values] : value.values.at(-1);
  }
  return raw ?? sent;
}
