// Schema names for the OpenAPI document. Request schemas (core/*/input.ts) and response schemas (api/*/response.ts)
// both name theirs, so the marker sits here, below both.

/**
 * A schema marked as a component is published once under `components.schemas` and referenced wherever it appears;
 * the marker is a symbol, so it survives TypeBox's copies (`Type.Optional`) and never reaches the JSON.
 */
const COMPONENT = Symbol('openapi.component');

export const component = <T extends object>(name: string, schema: T): T => Object.assign(schema, { [COMPONENT]: name });

export function componentName(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || !(COMPONENT in schema)) return undefined;
  const name = schema[COMPONENT];
  return typeof name === 'string' ? name : undefined;
}
