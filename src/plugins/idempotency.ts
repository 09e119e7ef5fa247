import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../http/errors.ts';
import { isValidIdempotencyKey, MAX_KEY_LENGTH, requestFingerprint } from '../core/idempotency/request.ts';
import { IdempotencyKeys, type KeyScope } from '../core/idempotency/store.ts';
import type { Store } from '../store/store.ts';
import type { EncodedReply } from './reply.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * D23: runs a create (`create`) at most once per `Idempotency-Key` of the caller on this route. A repeat of the
     * same request answers the first answer again (plus `Idempotent-Replayed: true`) without running `create`.
     */
    idempotentCreate(request: FastifyRequest, create: () => Promise<EncodedReply>): Promise<EncodedReply>;
  }
}

export interface IdempotencyOptions {
  store: Store;
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const invalidKey = () =>
  new ApiError(
    400,
    'rest_invalid_idempotency_key',
    `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (no spaces or control characters).`,
  );
const keyMismatch = () =>
  new ApiError(
    422,
    'rest_idempotency_key_mismatch',
    `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request; send a new key for a new request.`,
  );
const keyInUse = () =>
  new ApiError(
    409,
    'rest_idempotency_key_in_use',
    `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; try again shortly.`,
    {},
    { headers: { 'Retry-After': '1' } },
  );

const succeeded = (status: number) => status >= 200 && status < 300;

/**
 * D23, for the routes whose endpoint sets `acceptsIdempotencyKey` (the POST creates; api-routes calls
 * `idempotentCreate` around them). Runs in the handler, so after authentication and body parsing and before the
 * create's own validation:
 * - no header, or an anonymous caller: the create runs as usual (anonymous creates are refused anyway; an anonymous
 *   caller's key is not even checked, there is no one to scope it to);
 * - a malformed key: 400 `rest_invalid_idempotency_key`, before anything else;
 * - a key seen before (same user, same method and route pattern, within 24 hours) with a different request (query
 *   and body as parsed, canonicalised): 422; with the same request: 409 while the first attempt runs, else its answer
 *   again, byte for byte, with `Idempotent-Replayed: true` (nothing is written);
 * - a new key: claimed in the database before the create runs; a 2xx answer is stored, anything else (an error, a
 *   4xx or 5xx) gives the key back, so it may be used again.
 * The store or release after the create is best effort: if it fails, the client still gets the create's answer, and
 * the key stays claimed until its lease (a minute) ends.
 */
export default fp<IdempotencyOptions>(
  async (app, { store }) => {
    const keys = new IdempotencyKeys(store.db, {
      onPruneError: (error) =>
        app.log.warn({ err: error }, 'pruning expired idempotency keys failed; tried again in an hour'),
    });

    app.decorate(
      'idempotentCreate',
      async (request: FastifyRequest, create: () => Promise<EncodedReply>): Promise<EncodedReply> => {
        const sent = request.headers['idempotency-key'];
        const viewer = request.ctx.viewer;
        if (sent === undefined || viewer === null) return create();
        // Node joins a repeated header with ", ", which the grammar refuses.
        const key = Array.isArray(sent) ? sent.join(', ') : sent;
        if (!isValidIdempotencyKey(key)) throw invalidKey();

        const scope: KeyScope = { userId: viewer.id, route: `${request.method} ${request.routeOptions.url}`, key };
        const requestHash = requestFingerprint(request.query, request.body);
        const found = await keys.begin(scope, requestHash);
        if (found.state !== 'claimed') {
          if (found.requestHash !== requestHash) throw keyMismatch();
          if (found.state === 'running') throw keyInUse();
          const { answer } = found;
          return {
            status: answer.status,
            headers: { ...answer.headers, [REPLAYED_HEADER]: 'true' },
            type: answer.type,
            payload: answer.payload,
          };
        }

        const giveBack = () =>
          keys.release(scope, found.claim).catch((error: unknown) => {
            request.log.warn(
              { err: error },
              'giving an idempotency key back failed; it is free again once its lease ends',
            );
          });
        let answer: EncodedReply;
        try {
          answer = await create();
        } catch (error) {
          await giveBack();
          throw error;
        }
        if (!succeeded(answer.status)) {
          await giveBack();
          return answer;
        }
        try {
          const stored = await keys.complete(scope, found.claim, answer);
          if (!stored)
            request.log.warn(
              { key: scope.key },
              'an idempotency key was taken over before its create answered; the answer is not stored',
            );
        } catch (error) {
          request.log.warn(
            { err: error },
            'storing the answer of an idempotency key failed; the key is free again once its lease ends',
          );
        }
        return answer;
      },
    );
  },
  { name: 'idempotency', fastify: '5.x', dependencies: ['auth'] },
);
