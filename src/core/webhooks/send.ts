// One HTTP attempt of a delivery: POST with the Standard Webhooks headers, no redirects followed (a 3xx is a failure),
// cut after `timeoutMs` (10 s by default). Of the answer, at most 1 KiB of body is read, whatever the status (the
// connection is closed past that, so that a receiver answering without end costs nothing), and at most 16 KiB of
// headers (past that the attempt fails). Unless private addresses are allowed, the socket connects only to addresses
// that pass the SSRF check (url-safety.ts), checked after DNS.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { BLOCKED_ADDRESS, isBlockedAddress, safeLookup } from './url-safety.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_STORED_BODY_BYTES = 1024;
/** Set on each request, so that the limit holds whatever --max-http-header-size the process runs with. */
const MAX_ANSWER_HEADER_BYTES = 16 * 1024;

interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string;
  /** Why no answer came, as Node's error code (ECONNREFUSED, HPE_HEADER_OVERFLOW, ...), for the service's log. */
  errorCode?: string;
  /** At most MAX_STORED_BODY_BYTES of the answer (UTF-8, a cut character dropped). */
  body: string;
}

const codeOf = (error: Error) => ('code' in error && typeof error.code === 'string' ? error.code : 'ERR_WEBHOOK_SEND');

export type Sender = (request: SendRequest) => Promise<SendResult>;

/**
 * Connections are kept alive and reused between deliveries to the same receiver (a socket is checked once, when it
 * connects: the SSRF lookup runs then).
 */
const agents: Partial<Record<string, http.Agent>> = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

export const sendWebhook: Sender = (request) =>
  new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return resolve({
        ok: false,
        status: null,
        durationMs: 0,
        error: 'invalid URL',
        errorCode: 'ERR_INVALID_URL',
        body: '',
      });
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!request.allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
      return resolve({
        ok: false,
        status: null,
        durationMs: 0,
        error: `${host} is an address webhooks may not reach`,
        errorCode: BLOCKED_ADDRESS,
        body: '',
      });
    }
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'calendar-events-webhooks/1',
        ...request.headers,
        'content-length': String(Buffer.byteLength(request.body)),
      },
      ...(request.allowPrivate ? {} : { lookup: safeLookup }),
      agent: agents[url.protocol],
      maxHeaderSize: MAX_ANSWER_HEADER_BYTES,
    });
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, request.timeoutMs);
    req.on('error', (error) =>
      finish({ ok: false, status: null, error: error.message, errorCode: codeOf(error), body: '' }),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const answered = () => {
        const status = res.statusCode ?? 0;
        const body = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)).replace(/\uFFFD$/, '');
        const ok = status >= 200 && status < 300;
        finish({
          ok,
          status,
          error: ok ? '' : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `answered ${status}`,
          body,
        });
      };
      res.on('data', (chunk: Buffer) => {
        const room = MAX_STORED_BODY_BYTES - kept;
        chunks.push(chunk.subarray(0, room));
        kept += Math.min(chunk.length, room);
        // The status decided the outcome already: what the body says beyond what is kept is not read. A body that
        // ends within the limit is read to its end instead, so that its connection can be reused.
        if (chunk.length > room) {
          answered();
          res.destroy();
        }
      });
      res.on('error', (error) =>
        finish({ ok: false, status: res.statusCode ?? null, error: error.message, errorCode: codeOf(error), body: '' }),
      );
      res.on('end', answered);
    });
    req.end(request.body);
  });
