// Checked reads of arguments already validated (readArgs): where a record of arguments is typed loosely (an endpoint
// serving ids and slugs, a service taking the fields a request sent), these answer the type the argument's validator
// guaranteed, and fail loudly if it did not, instead of a cast that would let a wrong value through unseen.
/** Any record of arguments: a validated ArgValues, or an interface of the fields a write sent. */
type Values = object;

const read = (values: Values, name: string): unknown => Reflect.get(values, name);

function wrongType(name: string, expected: string, value: unknown): Error {
  return new TypeError(`argument "${name}" should be ${expected} after validation, got ${typeof value}`);
}

export function numberArg(values: Values, name: string): number {
  const value = read(values, name);
  if (typeof value !== 'number') throw wrongType(name, 'a number', value);
  return value;
}

export function stringArg(values: Values, name: string): string {
  const value = read(values, name);
  if (typeof value !== 'string') throw wrongType(name, 'a string', value);
  return value;
}

export const optionalNumberArg = (values: Values, name: string): number | undefined =>
  read(values, name) === undefined ? undefined : numberArg(values, name);

export const optionalStringArg = (values: Values, name: string): string | undefined =>
  read(values, name) === undefined ? undefined : stringArg(values, name);

export function booleanArg(values: Values, name: string): boolean {
  const value = read(values, name);
  if (typeof value !== 'boolean') throw wrongType(name, 'a boolean', value);
  return value;
}

export const optionalBooleanArg = (values: Values, name: string): boolean | undefined =>
  read(values, name) === undefined ? undefined : booleanArg(values, name);

export function optionalStringsArg(values: Values, name: string): string[] | undefined {
  const value = read(values, name);
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw wrongType(name, 'a list of strings', value);
}
