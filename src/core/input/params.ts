// Raw input as every surface hands it to the core: names to values, as parsed from a query, a form, a JSON body or a
// calendar file. Parsing them is the surface's business (http/params.ts for HTTP).

export type ParamMap = Record<string, unknown>;

/** Whether `name` was sent with a value (an own key, neither undefined nor null). */
export function hasParam(params: ParamMap, name: string): boolean {
  return Object.hasOwn(params, name) && params[name] !== undefined && params[name] !== null;
}
