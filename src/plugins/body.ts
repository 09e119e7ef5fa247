import fp from 'fastify-plugin';
import { parseFormBody, parseJsonBody } from '../http/body.ts';

/**
 * The two request bodies the API reads (§1.2), and nothing else: any other Content-Type is 415. JSON is parsed with
 * PHP's limits and errors (http/body.ts); both give a prototype-free parameter map.
 */
export default fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    // Fastify hands what a parser throws (an ApiError here) to `done` as the request's error.
    app.addContentTypeParser<string>('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, parseJsonBody(body)),
    );
    app.addContentTypeParser<string>(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, parseFormBody(body)),
    );
  },
  { name: 'body', fastify: '5.x' },
);
