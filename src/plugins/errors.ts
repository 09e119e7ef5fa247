import { OutgoingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.ts';
import { BODY_LIMIT_BYTES } from '../http/body.ts';
import { ApiError, noRoute, toApiError } from '../http/errors.ts';
import { JSON_TYPE } from '../http/content-types.ts';

/**
 * The one place where errors become answers, all in the contract's `{code, message, data: {status}}` shape:
 * - the error handler: `ApiError`s as they are, the core's domain errors through `toApiError`, Fastify's own 4xx
 *   through `frameworkError`, anything else a logged 500 that never shows its message;
 * - the not-found handler (`rest_no_route`);
 * - an HTTP/1.1 request without Host, refused before anything else runs;
 * - `answerFrameworkError` and `answerClientError`, which are Fastify constructor options (app.ts passes them): errors
 *   met before routing (a malformed URL) and the Node HTTP parser's own answers (431, 400, 408), which happen before
 *   there is a request at all.
 */

export function sendError(error: ApiError, reply: FastifyReply): void {
  if (error.headers) reply.headers(error.headers);
  reply.code(error.status).type(JSON_TYPE).send(error.toBody());
}

/** Fastify's own 4xx errors, answered in the contract's shape. */
function frameworkError(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        413,
        'rest_request_too_large',
        `The request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes.`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'rest_unsupported_media_type',
        'Unsupported Content-Type: send application/json or application/x-www-form-urlencoded.',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'rest_invalid_content_length', 'The Content-Length header does not match the body.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'rest_uri_too_long', 'A path segment of the request URL is too long.');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'rest_invalid_url', 'The request URL is malformed.');
    default:
      return new ApiError(error.statusCode ?? 400, 'rest_bad_request', 'The request could not be understood.');
  }
}

/** The `frameworkErrors` option: errors Fastify meets before a route runs. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  sendError(frameworkError(error), reply);
}

/** What the HTTP parser could not accept, by Node's error code; the same statuses Node itself would answer. */
export function clientError(code: string): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        431,
        'rest_request_headers_too_large',
        'The request headers are larger than the server accepts.',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError(413, 'rest_request_too_large', 'The chunk extensions of the request body are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'rest_request_timeout', 'The request did not arrive in time.');
    default:
      return new ApiError(400, 'rest_bad_request', 'The request could not be understood.');
  }
}

/** The raw HTTP/1.1 answer to a client error: written straight to the socket, which is then closed. */
function clientErrorResponse(error: ApiError, config: Pick<Config, 'corsOrigins'>): string {
  const body = JSON.stringify(error.toBody());
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
    `Content-Type: ${JSON_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    // Without the request's Origin only the open policy can be stated.
    ...(config.corsOrigins === '*' ? ['Access-Control-Allow-Origin: *'] : []),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * The `clientErrorHandler` option (Node's `clientError` event). As Node's own handler does, it answers only when the
 * socket is writable and no response on it has begun, and always closes the connection: the parser's state is lost.
 */
export function answerClientError(config: Pick<Config, 'corsOrigins'>) {
  return function (this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.debug({ err: error }, 'client error');
    // Node's own link from a socket to the response being written on it (not in its types), as its handler reads it.
    const inFlight = '_httpMessage' in socket ? socket._httpMessage : null;
    const begun = inFlight instanceof OutgoingMessage && inFlight.headersSent;
    if (socket.writable && !begun) socket.write(clientErrorResponse(clientError(error.code), config));
    socket.destroy(error);
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112 §3.2); HTTP/1.0 predates it. */
const missingHost = (request: FastifyRequest) =>
  request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor === 1 && request.headers.host === undefined;

export default fp(
  async (app) => {
    // The first onRequest hook (this plugin is registered first): nothing else runs for such a request. Node's own
    // check is off (app.ts) because its answer is an empty 400.
    app.addHook('onRequest', (request, reply, done) => {
      if (!missingHost(request)) return done();
      reply.header('Connection', 'close');
      done(new ApiError(400, 'rest_bad_request', 'The request has no Host header, which HTTP/1.1 requires.'));
    });

    app.setErrorHandler((thrown: FastifyError | ApiError, request, reply) => {
      const error = toApiError(thrown, Boolean(request.ctx?.viewer));
      if (error instanceof ApiError) return sendError(error, reply);
      if (typeof error.statusCode === 'number' && error.statusCode < 500)
        return sendError(frameworkError(error), reply);
      request.log.error({ err: error, method: request.method, url: request.url }, 'request failed');
      sendError(new ApiError(500, 'rest_internal_error', 'An internal error occurred.'), reply);
    });

    app.setNotFoundHandler((_request, reply) => sendError(noRoute(), reply));
  },
  { name: 'errors', fastify: '5.x' },
);
