// D23 across processes: two real service processes on one PostgreSQL database share the keys, so a create retried on
// another process is replayed, and simultaneous creates with one key on both processes make one item.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { it } from 'node:test';
import { describeOnTwoProcesses } from '../helpers/service-process.ts';
import { itemsNamed, KINDS, newKey, newName } from './idempotency-support.ts';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Raw bytes on one connection: header values fetch refuses to send (control characters, non-ASCII). */
function rawRequest(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describeOnTwoProcesses('Idempotent creates, two service processes on one PostgreSQL database (D23)', (h, services) => {
  const send = async (index: number, collection: string, body: unknown, key: string): Promise<Answer> => {
    const service = services()[index % services().length];
    const response = await fetch(`http://127.0.0.1:${service.port}${h().api}/${collection}`, {
      method: 'POST',
      headers: {
        authorization: h().users.administrator.authorization,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  it('replays on one process the create another process answered', async () => {
    const kind = KINDS[0];
    const key = newKey();
    const name = newName('Cross-process replay');
    const first = await send(0, 'events', kind.body(name), key);
    assert.equal(first.status, 201, first.text);
    const again = await send(1, 'events', kind.body(name), key);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.match(again.headers.get('cache-control') ?? '', /no-store/);
    assert.equal((await send(1, 'events', { ...kind.body(name), title: 'Other' }, key)).status, 422);
    assert.equal(await itemsNamed(h(), kind, name), 1);
  });

  for (const kind of KINDS) {
    it(`makes one of the ${kind.collection} of 20 simultaneous creates with one key on two processes`, async () => {
      for (let round = 0; round < 3; round++) {
        const key = newKey();
        const name = newName(`Two-process ${kind.collection}`);
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) => send(index, kind.collection, kind.body(name), key)),
        );
        const created = answers.filter(
          (answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null,
        );
        assert.equal(
          created.length,
          1,
          answers.map((answer) => `${answer.status} ${answer.text.slice(0, 80)}`).join('\n'),
        );
        for (const answer of answers) {
          if (answer.status === 409) assert.equal(JSON.parse(answer.text).code, 'rest_idempotency_key_in_use');
          else {
            assert.equal(answer.status, 201, answer.text);
            assert.equal(answer.text, created[0].text);
          }
        }
        assert.equal(await itemsNamed(h(), kind, name), 1);
      }
    });
  }

  it('answers malformed keys on the wire with 400 in the error shape', async () => {
    const body = Buffer.from(JSON.stringify({ name: newName('Wire') }));
    const head = (key: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `POST ${h().api}/tags HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${h().users.administrator.authorization}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\nIdempotency-Key: `,
        ),
        key,
        Buffer.from('\r\n\r\n'),
        body,
      ]);
    // Non-ASCII (UTF-8 bytes) and a tab reach the service; a control character is refused by the HTTP parser itself.
    for (const key of [
      Buffer.from('café'),
      Buffer.from('a\tb'),
      Buffer.from('a\u0001b'),
      Buffer.from('x'.repeat(256)),
    ]) {
      const answer = await rawRequest(services()[0].port, head(key));
      assert.match(answer, /^HTTP\/1\.1 400 /, JSON.stringify(key.toString('latin1')));
      const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      assert.equal(json.data.status, 400);
      assert.ok(['rest_invalid_idempotency_key', 'rest_bad_request'].includes(json.code), json.code);
      if (key[1] !== 1) assert.equal(json.code, 'rest_invalid_idempotency_key');
    }
  });
});
