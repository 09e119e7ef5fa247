// A query key sent more than once (`categories=1&categories=4`), as openapi-fetch and most HTTP clients send a list:
// a list argument takes every value, never silently the last one only; any other argument takes the last value, as
// PHP (and so the reference) reads a repeated key.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';

describeEachDatabase('repeated query keys', (h) => {
  beforeEach(() => h().setNow('2027-03-01T12:00:00Z'));
  const api = (query: string) => h().app.inject({ method: 'GET', url: `${h().config.apiPath}/events?${query}` });

  it('reads a repeated key of a list argument as the list, as the CSV and bracket forms are read', async () => {
    const admin = h().users.administrator;
    const jazz = (await h().request('POST', '/categories', { as: admin, body: { name: 'Repeated Jazz' } })).json();
    const folk = (await h().request('POST', '/categories', { as: admin, body: { name: 'Repeated Folk' } })).json();
    const window = 'start_date=2027-03-01&end_date=2027-04-30';
    for (const [title, category] of [
      ['Jazz one', jazz.id],
      ['Jazz two', jazz.id],
      ['Folk one', folk.id],
    ] as const) {
      await createEvent(
        h(),
        {
          title,
          status: 'publish',
          start_date: '2027-03-10 10:00:00',
          end_date: '2027-03-10 11:00:00',
          categories: [category],
        },
        admin,
      );
    }
    const titles = async (query: string) => {
      const response = await api(query);
      assert.equal(response.statusCode, 200, response.body);
      return (response.json().events as Array<{ title: string }>).map((event) => event.title).sort();
    };
    const all = ['Folk one', 'Jazz one', 'Jazz two'];
    assert.deepEqual(await titles(`${window}&categories=${jazz.id}&categories=${folk.id}`), all, 'repeated key');
    assert.deepEqual(await titles(`${window}&categories=${jazz.id},${folk.id}`), all, 'CSV');
    assert.deepEqual(await titles(`${window}&categories[]=${jazz.id}&categories[]=${folk.id}`), all, 'brackets');
    assert.deepEqual(await titles(`${window}&categories=${folk.id}`), ['Folk one']);
    // The list's own links carry every value.
    const listed = (await api(`${window}&categories=${jazz.id}&categories=${folk.id}&per_page=1`)).json();
    assert.match(decodeURIComponent(listed.next_rest_url), new RegExp(`categories=${jazz.id},${folk.id}`));
  });

  it('reads a repeated key of any other argument as its last value, and never answers 500', async () => {
    for (let index = 0; index < 3; index++) {
      await createEvent(
        h(),
        {
          title: `Paged ${index}`,
          status: 'publish',
          start_date: '2027-03-12 10:00:00',
          end_date: '2027-03-12 11:00:00',
        },
        h().users.administrator,
      );
    }
    const paged = await api('start_date=2027-03-01&end_date=2027-04-30&per_page=1&per_page=2');
    assert.equal(paged.statusCode, 200, paged.body);
    assert.equal(paged.json().events.length, 2);
    for (const query of [
      'password=a&password=b',
      'search=x&search=y',
      'status=publish&status=draft',
      'page=1&page=2&page=3',
    ]) {
      const response = await api(query);
      assert.ok(response.statusCode < 500, `${query}: ${response.statusCode} ${response.body}`);
    }
    const page = await h().app.inject({ method: 'GET', url: '/events/?page=1&page=1' });
    assert.equal(page.statusCode, 200, 'pages read a repeated key as its last value');
  });
});
