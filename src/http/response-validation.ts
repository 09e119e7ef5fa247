import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import Compile from 'typebox/compile';
import { ApiError } from './errors.ts';
import type { AnyEndpoint } from './routes.ts';
import { ErrorSchema } from './schemas.ts';

/** What a response must look like: a schema, nothing (not described yet), or a status the endpoint never mentions. */
export type Expectation = { schema: TSchema } | { undocumented: true } | undefined;

/**
 * Every error must be the envelope (or what its endpoint documents for that status). A success is checked only on
 * endpoints that describe their responses with schemas; on those, a success status they do not document is drift too.
 */
export function expectedResponse(definition: AnyEndpoint | undefined, status: number): Expectation {
  const documented = definition?.responses[status];
  if (status >= 400) return { schema: documented?.schema ?? ErrorSchema };
  if (!definition || !Object.values(definition.responses).some((response) => response.schema)) return undefined;
  return documented?.schema ? { schema: documented.schema } : { undocumented: true };
}

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();

/** Where `value` breaks `schema`, as `<JSON pointer>: <message>` lines; empty when it fits. */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  if (validator.Check(value)) return [];
  return validator
    .Errors(value)
    .slice(0, 20)
    .map((error) => `${error.instancePath || '/'}: ${error.message}`);
}

function endpointOf(request: FastifyRequest): AnyEndpoint | undefined {
  const group = request.routeOptions.config?.group;
  return group?.endpoints.find((candidate) => candidate.methods.some((method) => method === request.method));
}

/**
 * `VALIDATE_RESPONSES=1`: every JSON response is checked against the schema the OpenAPI document publishes for it. A
 * mismatch is logged and answered 500 `rest_response_invalid`, so any test that meets it fails: the document cannot
 * drift from the code unnoticed.
 */
export function installResponseValidation(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'HEAD' || request.method === 'OPTIONS') return payload;
    // JSON goes out as a string, or as the bytes the read cache keeps.
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    if (text === '' || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const status = reply.statusCode;
    const expectation = expectedResponse(endpointOf(request), status);
    if (expectation === undefined) return payload;
    const problems =
      'undocumented' in expectation
        ? [`status ${status} is not among the documented responses`]
        : schemaProblems(expectation.schema, JSON.parse(text));
    if (problems.length === 0) return payload;
    request.log.error(
      { method: request.method, url: request.url, status, problems },
      'response does not match its documented schema',
    );
    reply.code(500);
    return JSON.stringify(
      new ApiError(
        500,
        'rest_response_invalid',
        `The ${status} response to ${request.method} ${request.url.split('?')[0]} does not match its documented schema.`,
        { problems },
      ).toBody(),
    );
  });
}
