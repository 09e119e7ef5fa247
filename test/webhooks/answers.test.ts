// D27 receivers that answer without end: an attempt reads at most the first 1 KiB of the body, whatever the status, and
// then hangs up; headers beyond the limit fail the attempt. The bytes the service read are counted on its own sockets.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { it } from 'node:test';
import { WebhookWorker } from '../../src/core/webhooks/worker.ts';
import { HANG_GUARD_MS } from '../helpers/eventually.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

/** Far beyond the 1 KiB kept, far below what an endless answer sends: a few of the socket's 64 KiB reads. */
const MAX_BYTES_READ = 256 * 1024;
const CHUNK = Buffer.alloc(16 * 1024, 'x');

interface EndlessReceiver {
  url: string;
  /** Bytes handed to the connection before it closed. */
  written(): number;
  close(): Promise<void>;
}

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
};

/** What a receiver handed to its connections, in bytes. */
interface Sent {
  bytes: number;
}

/** Writes `next()` for as long as `open()` holds, waiting for 'drain' when the buffer is full; counts it in `sent`. */
function writeUntilClosed(
  stream: { write(chunk: string | Buffer): boolean; once(event: 'drain', listener: () => void): unknown },
  open: () => boolean,
  next: () => string | Buffer,
  sent: Sent,
): void {
  const pump = () => {
    while (open()) {
      const chunk = next();
      sent.bytes += chunk.length;
      if (!stream.write(chunk)) {
        stream.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

/** `server` listening as a receiver; closing it runs `hangUp` (which drops its connections), then closes the server. */
async function receiverAt(server: Server, sent: Sent, hangUp: () => void): Promise<EndlessReceiver> {
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    written: () => sent.bytes,
    close: () =>
      new Promise((resolve) => {
        hangUp();
        server.close(() => resolve());
      }),
  };
}

/** Answers `status` with a chunked body that never ends: it writes until the service hangs up. */
async function endlessBody(status: number): Promise<EndlessReceiver> {
  const sent: Sent = { bytes: 0 };
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'text/plain' });
      let open = true;
      response.on('close', () => {
        open = false;
      });
      writeUntilClosed(
        response,
        () => open,
        () => CHUNK,
        sent,
      );
    });
  });
  return receiverAt(server, sent, () => server.closeAllConnections());
}

/** Answers a status line, then header lines without end (a raw socket: node:http would refuse to send them). */
async function endlessHeaders(): Promise<EndlessReceiver> {
  const sent: Sent = { bytes: 0 };
  const connections = new Set<Socket>();
  const server = createTcpServer((socket) => {
    connections.add(socket);
    socket.on('error', () => {});
    let open = true;
    socket.on('close', () => {
      open = false;
      connections.delete(socket);
    });
    let answered = false;
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      socket.write('HTTP/1.1 200 OK\r\n');
      let line = 0;
      writeUntilClosed(
        socket,
        () => open,
        () => `x-padding-${line++}: ${'a'.repeat(1000)}\r\n`,
        sent,
      );
    });
  });
  return receiverAt(server, sent, () => {
    for (const socket of connections) socket.destroy();
  });
}

/** Runs `work`, then says how many bytes the service's sockets to `port` read meanwhile. */
async function bytesReadFrom<T>(port: number, work: () => Promise<T>): Promise<{ result: T; bytesRead: number }> {
  const sockets: Array<{ socket: Socket; remotePort?: number }> = [];
  const onSocket = (message: unknown) => {
    const entry: { socket: Socket; remotePort?: number } = { socket: (message as { socket: Socket }).socket };
    entry.socket.once('connect', () => {
      entry.remotePort = entry.socket.remotePort;
    });
    sockets.push(entry);
  };
  subscribe('net.client.socket', onSocket);
  try {
    const result = await work();
    const mine = sockets.filter((entry) => entry.remotePort === port);
    assert.ok(mine.length > 0, 'the attempt connected to the receiver');
    return { result, bytesRead: mine.reduce((sum, entry) => sum + entry.socket.bytesRead, 0) };
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
}

describeEachDatabase(
  'Webhooks: a receiver answering without end',
  (h) => {
    const admin = () => h().users.administrator;

    async function attemptOnce(receiver: EndlessReceiver) {
      const hook = (
        await h().request('POST', '/webhooks', { as: admin(), body: { url: receiver.url, events: ['*'] } })
      ).json();
      // The timeout bounds an attempt that would otherwise read for ever (the code before the fix), only against a hang.
      const worker = new WebhookWorker(h().store, h().config, { timeoutMs: HANG_GUARD_MS });
      try {
        const created = await h().request('POST', '/venues', { as: admin(), body: { venue: 'Endless hall' } });
        assert.equal(created.statusCode, 201, created.body);
        const port = Number(new URL(receiver.url).port);
        const { result: attempted, bytesRead } = await bytesReadFrom(port, () => worker.runOnce());
        assert.equal(attempted, 1);
        const [attempt] = (await h().request('GET', `/webhooks/${hook.id}/deliveries`, { as: admin() })).json();
        return { attempt, bytesRead };
      } finally {
        await worker.stop();
        await h().request('DELETE', `/webhooks/${hook.id}`, { as: admin() });
      }
    }

    for (const [status, outcome] of [
      [500, 'failed'],
      [200, 'succeeded'],
    ] as const) {
      it(`an endless ${status} body: the first 1 KiB is kept, the connection closed, the attempt ${outcome}`, async () => {
        const receiver = await endlessBody(status);
        try {
          const { attempt, bytesRead } = await attemptOnce(receiver);
          assert.ok(
            bytesRead <= MAX_BYTES_READ,
            `the service read ${bytesRead} bytes (the receiver wrote ${receiver.written()})`,
          );
          assert.equal(attempt.status, outcome, JSON.stringify(attempt));
          assert.equal(attempt.delivery_status, status === 200 ? 'succeeded' : 'pending');
          assert.equal(attempt.response_code, status);
          assert.equal(attempt.response_body, 'x'.repeat(1024));
        } finally {
          await receiver.close();
        }
      });
    }

    it('headers without end fail the attempt, with no status, once they pass the limit', async () => {
      const receiver = await endlessHeaders();
      try {
        const { attempt, bytesRead } = await attemptOnce(receiver);
        assert.ok(
          bytesRead <= MAX_BYTES_READ,
          `the service read ${bytesRead} bytes (the receiver wrote ${receiver.written()})`,
        );
        assert.equal(attempt.status, 'failed');
        assert.equal(attempt.delivery_status, 'pending');
        assert.equal(attempt.response_code, null);
        assert.match(attempt.error, /header/i);
      } finally {
        await receiver.close();
      }
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: '1' },
);
