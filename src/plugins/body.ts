import fp from 'fastify-plugin';
import { parseFormBody, parseJsonBody } from '../http/body.ts';

/**
 * The two request bodies the API reads (§1.2), and nothing else: any other Content-Type is 415. JSON is parsed with
 * PHP's limits and errors (http/body.ts); both give a prototype-free parameter map.
 */
export default fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as unknown as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, parseFormBody(body as unknown as string)),
    );
  },
  { name: 'body', fastify: '5.x' },
);
