// openapi-typescript prints its types with TypeScript's compiler API, which TypeScript 7 (the project's tsc) no longer
// has: this package gives it a TypeScript 5 of its own, in its own node_modules, so that `tsc` stays the project's.
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

/** The declarations (`paths`, `components`, `operations`) openapi-typescript generates from an OpenAPI document. */
export async function generateTypes(document: object): Promise<string> {
  return astToString(await openapiTS(document as OpenAPI3));
}
