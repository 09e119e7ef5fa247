// The Node HTTP parser's own answers (a request too large or malformed to become a request at all, or one that did
// not arrive in time) in the contract's error shape, on a real socket.
import assert from 'node:assert/strict';
import net, { type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../helpers/harness.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `text` and reads until the server closes the connection. */
function exchange(port: number, text: string, onConnected?: () => void): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', onConnected);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = raw.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    if (text !== '') socket.write(text);
  });
}

function assertContractShape(response: RawResponse, status: number, code: string): void {
  assert.equal(response.status, status);
  assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers.connection, 'close');
  assert.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body));
  const body = JSON.parse(response.body);
  assert.deepEqual(Object.keys(body), ['code', 'message', 'data']);
  assert.equal(body.code, code);
  assert.deepEqual(body.data, { status });
}

describe('protocol errors answered by the HTTP parser', () => {
  let h: Harness;
  let port: number;
  before(async () => {
    h = await createHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await h.close();
  });

  it('answers 431 to headers larger than the server accepts', async () => {
    const response = await exchange(
      port,
      `GET ${h.api}/venues HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`,
    );
    assertContractShape(response, 431, 'rest_request_headers_too_large');
    assert.equal(response.headers['access-control-allow-origin'], '*');
  });

  it('answers 400 to a request the parser cannot read', async () => {
    for (const text of [
      'GARBAGE\r\n\r\n',
      `GET ${h.api}/venues HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    ]) {
      assertContractShape(await exchange(port, text), 400, 'rest_bad_request');
    }
  });

  it('answers 408 when the request does not arrive in time', async () => {
    // Node raises ERR_HTTP_REQUEST_TIMEOUT from its periodic connection check (every 30 s by default): the same
    // event is raised here at once, on the server side of a real connection that has sent nothing yet.
    const serverSide = new Promise<Socket>((resolve) => h.app.server.once('connection', resolve));
    const response = exchange(port, '', () => {
      void serverSide.then((socket) => {
        h.app.server.emit(
          'clientError',
          Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
          socket,
        );
      });
    });
    assertContractShape(await response, 408, 'rest_request_timeout');
  });

  it('answers 400 in the contract shape to an HTTP/1.1 request without a Host header', async () => {
    const response = await exchange(port, `GET ${h.api}/venues HTTP/1.1\r\nConnection: close\r\n\r\n`);
    assert.equal(response.status, 400);
    assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
    const body = JSON.parse(response.body);
    assert.deepEqual(Object.keys(body), ['code', 'message', 'data']);
    assert.equal(body.code, 'rest_bad_request');
    assert.match(body.message, /Host/);
    assert.deepEqual(body.data, { status: 400 });
  });

  it('still serves HTTP/1.0 requests without a Host header, which HTTP/1.0 does not require', async () => {
    const response = await exchange(port, `GET /health HTTP/1.0\r\n\r\n`);
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { status: 'ok' });
  });

  it('still serves well-formed requests on the same server', async () => {
    const response = await exchange(port, `GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { status: 'ok' });
  });
});
