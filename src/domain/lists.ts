/** The effective query a list echoes in its URLs: ordered name/value pairs, lists already joined as CSV. */
export type EchoedQuery = Array<[string, string | number | boolean | undefined]>;

/** The page size a list uses: the one asked for, else the default, never more than the maximum. */
export const clampPerPage = (requested: number | undefined, fallback: number, max: number) =>
  Math.min(requested ?? fallback, max);

/** `tribe_is_truthy`: the looser reading some list filters use (`yes`, `on` count as true). */
export function coerceTruthy(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw !== 0;
  if (typeof raw !== 'string') return undefined;
  return ['true', '1', 'yes', 'on'].includes(raw.trim().toLowerCase());
}

/** A list as CSV (`1, 2`) or as a real array; items are scalars. Undefined when the value is neither. */
export function toList(raw: unknown): string[] | undefined {
  if (typeof raw === 'number') return [String(raw)];
  if (typeof raw === 'string')
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  if (!Array.isArray(raw)) return undefined;
  const items: string[] = [];
  for (const item of raw) {
    if (typeof item === 'number' && Number.isFinite(item)) items.push(String(item));
    else if (typeof item === 'string') items.push(...toList(item)!);
    else return undefined;
  }
  return items;
}

/** Whether `value` is one of `items`: a type guard for a list of literals (a status, a weekday code). */
export const isOneOf = <T extends string>(items: readonly T[], value: string): value is T =>
  items.some((item) => item === value);

/** A JSON array of strings the service itself stored (costs, recurrence lines); anything else is a bug, and throws. */
export function parseStringList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new TypeError(`a stored list of strings holds ${json.slice(0, 80)}`);
  return value;
}
