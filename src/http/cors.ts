import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

const EXPOSED = ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages', 'Link', 'Location', 'Allow'];
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-WP-Nonce', 'Content-Disposition', 'Content-MD5'];
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** D12b: `*` by default; with a list, the request's origin is echoed when it is listed. */
export function applyCors(config: Config, request: FastifyRequest, reply: FastifyReply): void {
  if (config.corsOrigins === '*') {
    reply.header('Access-Control-Allow-Origin', '*');
  } else {
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !config.corsOrigins.includes(origin)) return;
    reply.header('Access-Control-Allow-Origin', origin);
  }
  reply.header('Access-Control-Expose-Headers', EXPOSED.join(', '));
}

export function corsPreflightHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': '600',
  };
}
