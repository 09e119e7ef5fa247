// A real HTTP receiver on 127.0.0.1 for the webhook tests: records every request and answers as told.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../helpers/eventually.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What to answer to the n-th request (0-based): a status, or 'hang' (never answer). */
export type Behaviour = (
  n: number,
  received: Received,
) => number | 'hang' | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  /** The deliveries verified with the standardwebhooks package (throws on a bad signature). */
  verified(secret: string): Array<{
    id: string;
    timestamp: number;
    payload: { type: string; timestamp: string; data: Record<string, unknown> };
  }>;
  /** Waits until `predicate` holds of what was received (the bound only guards against a hang). */
  waitFor(predicate: (received: Received[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    behaviour,
    verified(secret) {
      const webhook = new Webhook(secret);
      return received.map((entry) => {
        const headers = {
          'webhook-id': String(entry.headers['webhook-id']),
          'webhook-timestamp': String(entry.headers['webhook-timestamp']),
          'webhook-signature': String(entry.headers['webhook-signature']),
        };
        const payload = webhook.verify(entry.body, headers) as {
          type: string;
          timestamp: string;
          data: Record<string, unknown>;
        };
        return { id: headers['webhook-id'], timestamp: Number(headers['webhook-timestamp']), payload };
      });
    },
    waitFor: (predicate) =>
      eventually(
        () => predicate(received),
        'the receiver got what was awaited',
        () => `${received.length} received`,
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const answer = receiver.behaviour(received.length, entry);
      received.push(entry);
      if (answer === 'hang') return;
      const { status, body, headers, delayMs } =
        typeof answer === 'number' ? { status: answer, body: 'ok', headers: {}, delayMs: 0 } : answer;
      setTimeout(() => {
        response.writeHead(status, headers);
        response.end(body ?? '');
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${port}/hook`;
  return receiver;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
