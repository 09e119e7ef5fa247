import type { FastifyReply } from 'fastify';
import { hasItemStream, serializeBounded } from '../http/bounded-json.ts';
import { JSON_TYPE } from '../http/content-types.ts';
import type { EncodedReply, Reply } from '../http/routes.ts';

export type { EncodedReply };

/** A handler's `Reply` as it goes on the wire: what the read cache keeps and what `sendReply` writes. */

const BODILESS = new Set([204, 304]);

/** Serialises a handler's answer once: JSON bodies to their text, other payloads as they are, 204/304 to nothing. */
export function encodeReply(result: Reply): EncodedReply {
  const status = result.status ?? 200;
  const headers = result.headers ?? {};
  if ('type' in result) return { status, headers, type: result.type, payload: result.payload };
  if (result.body === undefined && BODILESS.has(status)) return { status, headers, type: null, payload: null };
  return { status, headers, type: JSON_TYPE, payload: JSON.stringify(result.body) };
}

/**
 * {@link encodeReply} for the API's answers: a list body (one holding an `ItemStream`) is built and serialised item by
 * item under the response budget `maxBytes` (D31: 400 `rest_response_too_large` past it), giving the event loop a turn
 * between items; every other answer as {@link encodeReply} gives it.
 */
export async function encodeReplyBounded(result: Reply, maxBytes: number): Promise<EncodedReply> {
  if (!('body' in result) || !hasItemStream(result.body)) return encodeReply(result);
  return {
    status: result.status ?? 200,
    headers: result.headers ?? {},
    type: JSON_TYPE,
    payload: await serializeBounded(result.body, maxBytes),
  };
}

export function sendReply(reply: FastifyReply, encoded: EncodedReply): FastifyReply {
  reply.headers(encoded.headers).code(encoded.status);
  if (encoded.type !== null) reply.type(encoded.type);
  return encoded.payload === null ? reply.send() : reply.send(encoded.payload);
}

/** Whether a status carries no body at all, so no Content-Type either (RFC 9110 §15.3.5, RFC 9110 §15.4.5). */
export const isBodiless = (status: number) => BODILESS.has(status);
