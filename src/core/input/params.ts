// Raw input as every surface hands it to the core: names to values, as parsed from a query, a form, a JSON body or a
// calendar file. Parsing them is the surface's business (http/params.ts for HTTP).

export type ParamMap = Record<string, unknown>;

/**
 * The values of a plain key sent more than once (`categories=1&categories=4`: how most HTTP clients send a list, and
 * what an OpenAPI `explode: true` array is). Reading the arguments turns it into all its values for a list argument
 * and the last one for any other, as PHP reads a repeated key: a list never loses a value.
 */
export class RepeatedValues {
  readonly values: string[];

  constructor(values: string[]) {
    this.values = values;
  }
}

/** Whether `name` was sent with a value (an own key, neither undefined nor null). */
export function hasParam(params: ParamMap, name: string): boolean {
  return Object.hasOwn(params, name) && params[name] !== undefined && params[name] !== null;
}
