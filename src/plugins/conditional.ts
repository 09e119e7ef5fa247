import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { preconditionFailed } from '../domain/errors.ts';
import { entityTag, matchHolds, noneMatchFails, parseTagCondition, type TagCondition } from '../http/etag.ts';
import { ApiError, domainApiError } from '../http/errors.ts';
import { JSON_TYPE } from '../http/content-types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** D22: the request's `If-None-Match`, parsed (only GET and HEAD use it). */
    ifNoneMatch: TagCondition | undefined;
  }
}

const HEADER_NAMES = { 'if-match': 'If-Match', 'if-none-match': 'If-None-Match' } as const;

const invalidHeader = (name: string) =>
  new ApiError(
    400,
    'rest_invalid_header',
    `Invalid ${name} header: send * or a comma-separated list of quoted entity tags.`,
    { header: name },
  );

function readCondition(request: FastifyRequest, header: keyof typeof HEADER_NAMES): TagCondition | undefined {
  const value = request.headers[header];
  if (value === undefined) return undefined;
  const condition = parseTagCondition(Array.isArray(value) ? value.join(', ') : value);
  if (condition === null) throw invalidHeader(HEADER_NAMES[header]);
  return condition;
}

/**
 * D22 conditional requests on every route:
 * - `If-Match` and `If-None-Match` are parsed before the handler (after authentication and the body's parsing): a
 *   malformed one is 400 `rest_invalid_header`; `If-Match` goes to the handler as `ctx.ifMatch`, which item writes check
 *   in their transaction (http/etag.ts `ifMatchPrecondition`);
 * - every 200 answer to a GET or HEAD gets a strong `ETag` computed from its Content-Type and exact bytes, as they
 *   leave (after the read cache and the response checks). The read cache hands out the same Buffer on every hit, so a
 *   hit's tag is remembered by Buffer and not hashed again;
 * - then, on GET and HEAD, `If-Match` that does not hold is 412 and `If-None-Match` that matches is 304 without a body
 *   (same ETag and other headers; the Content-Type and body go). The read cache only ever holds the 200: whoever sends no
 *   `If-None-Match` gets the full answer.
 */
export default fp(
  async (app) => {
    const tags = new WeakMap<Buffer, { type: string; tag: string }>();
    const tagOf = (type: string, payload: string | Buffer): string => {
      if (typeof payload === 'string') return entityTag(type, payload);
      const known = tags.get(payload);
      if (known !== undefined && known.type === type) return known.tag;
      const tag = entityTag(type, payload);
      tags.set(payload, { type, tag });
      return tag;
    };

    app.decorateRequest('ifNoneMatch', undefined);
    // A malformed header throws: Fastify answers it through the error handler.
    app.addHook('preHandler', (request, _reply, done) => {
      if (request.is404 || request.method === 'OPTIONS') return done();
      const ifMatch = readCondition(request, 'if-match');
      request.ifNoneMatch = readCondition(request, 'if-none-match');
      if (ifMatch !== undefined && request.ctx) request.ctx.ifMatch = ifMatch;
      if (request.ifNoneMatch !== undefined && request.ctx) request.ctx.ifNoneMatch = request.ifNoneMatch;
      done();
    });

    app.addHook('onSend', (request, reply, payload, done) => done(null, conditionalAnswer(request, reply, payload)));

    /** The answer as it leaves: tagged, or replaced by a 412 or a 304. */
    function conditionalAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      const given = reply.getHeader('etag');
      const tag = typeof given === 'string' ? given : tagOf(String(reply.getHeader('content-type') ?? ''), payload);
      reply.header('ETag', tag);

      const ifMatch = request.ctx?.ifMatch;
      if (ifMatch !== undefined && !matchHolds(ifMatch, tag)) {
        reply.removeHeader('etag');
        reply.code(412).type(JSON_TYPE);
        return JSON.stringify(domainApiError(preconditionFailed(), Boolean(request.ctx?.viewer)).toBody());
      }
      if (request.ifNoneMatch !== undefined && noneMatchFails(request.ifNoneMatch, tag)) {
        reply.code(304);
        reply.removeHeader('content-type');
        // HEAD: Fastify's own HEAD hook, after this one, turns the body into its Content-Length, which RFC 9110 §8.6
        // allows on a 304 when it is the 200's; GET: nothing at all.
        return request.method === 'HEAD' ? payload : null;
      }
      return payload;
    }
  },
  { name: 'conditional', fastify: '5.x', dependencies: ['auth'] },
);
