import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

const EXPOSED = [
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'X-WP-Total',
  'X-WP-TotalPages',
  'Link',
  'Location',
  'Allow',
  'Idempotent-Replayed',
  'ETag',
  'Last-Modified',
  'X-Sync-Cursor',
  'X-Truncated',
];
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-WP-Nonce',
  'Content-Disposition',
  'Content-MD5',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
];
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** D12b: `*` by default; with a list, the request's origin is echoed when it is listed. */
export function applyCors(config: Config, request: FastifyRequest, reply: FastifyReply): void {
  if (config.corsOrigins === '*') {
    reply.header('Access-Control-Allow-Origin', '*');
  } else {
    addVary(reply, 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !config.corsOrigins.includes(origin)) return;
    reply.header('Access-Control-Allow-Origin', origin);
  }
  reply.header('Access-Control-Expose-Headers', EXPOSED.join(', '));
}

/** Adds a request header to `Vary`, keeping whatever a handler put there. */
function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('Vary', name);
    return;
  }
  const listed = String(current)
    .split(',')
    .map((item) => item.trim().toLowerCase());
  if (!listed.includes(name.toLowerCase()) && !listed.includes('*')) reply.header('Vary', `${current}, ${name}`);
}

export function corsPreflightHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': '600',
  };
}
