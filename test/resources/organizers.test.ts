// Organizers: the shared linked-post behaviours, then what only organizers have (§3.3, §6, §7, D6).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { linkedPostSuite } from './linked-post-suite.ts';
import { assertInvalidParams, comparable, createLinked, idsOf, keysOf, LEADING_KEYS, readExample } from './support.ts';

linkedPostSuite({
  title: 'Organizers',
  collection: 'organizers',
  nameKey: 'organizer',
  other: 'venues',
  searchableField: 'phone',
  messages: {
    notAccessible: ['organizer-not-accessible', 'The requested organizer is not accessible'],
    inTrash: ['organizer-is-in-trash', 'The organizer is already trashed'],
    pageNotFound: ['organizer-archive-page-not-found', 'The requested organizer archive page does not exist'],
  },
});

const decodeEntities = (text: string) =>
  text.replace(/&#(\d+);/g, (_entity, code: string) => String.fromCodePoint(Number(code)));

describeEachDatabase('Organizers: the recorded examples', (h) => {
  const created = readExample('05-create-organizer.json');
  const single = readExample('19-get-organizer.json');
  const listed = readExample('15-list-organizers.json');
  let id = 0;

  it('creates the organizer of example 05 with the same object, key for key (ids, author and clock aside)', async () => {
    const response = await h().request('POST', '/organizers', {
      as: h().users.administrator,
      body: created.request.body,
    });
    assert.equal(response.statusCode, created.response.status);
    assert.deepEqual(comparable(response.json()), comparable(created.response.body));
    assert.equal(response.headers.allow, created.response.headers.Allow);
    assert.equal(response.headers.location, `${h().config.apiRoot}/organizers/${response.json().id}`);
    id = response.json().id;
  });

  it('reads it back as example 19: the same keys in the same order, json_ld before the global ids', async () => {
    const response = await h().request('GET', `/organizers/${id}`);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(keysOf(body), keysOf(single.response.body));
    const { json_ld: jsonLd, ...rest } = body;
    const { json_ld: expectedJsonLd, ...expectedRest } = single.response.body;
    assert.deepEqual(comparable(rest), comparable(expectedRest));
    assert.deepEqual(keysOf(jsonLd), keysOf(expectedJsonLd));
    for (const key of ['@type', 'name', 'url', 'telephone', 'sameAs'])
      assert.equal(jsonLd[key], expectedJsonLd[key], key);
    assert.equal(
      decodeEntities(jsonLd.email),
      decodeEntities(expectedJsonLd.email),
      'the e-mail is entity-obfuscated in json_ld only',
    );
    assert.notEqual(jsonLd.email, 'org@example.com');
    assert.equal(jsonLd.description, '&lt;p&gt;A sample organizer&lt;/p&gt;');
  });

  it('lists it as example 15: the envelope, the headers and the item without json_ld', async () => {
    const response = await h().request('GET', '/organizers');
    const body = response.json();
    assert.deepEqual(keysOf(body), keysOf(listed.response.body));
    assert.equal(body.rest_url, listed.response.body.rest_url);
    assert.deepEqual(body.organizers.map(comparable), listed.response.body.organizers.map(comparable));
    assert.equal(response.headers['x-tec-total'], listed.response.headers['X-TEC-Total']);
    assert.equal(response.headers['x-tec-totalpages'], listed.response.headers['X-TEC-TotalPages']);
  });
});

describeEachDatabase('Organizers: fields', (h) => {
  const create = (body: Record<string, unknown>) => createLinked(h(), 'organizers', body);
  const update = (id: number, body: Record<string, unknown>) =>
    h().request('PATCH', `/organizers/${id}`, { as: h().users.editor, body });

  it('leaves out every empty field and has no venue fields or map flags (§3.3)', async () => {
    const organizer = await create({
      organizer: 'Bare Org',
      phone: '',
      email: '',
      website: '',
      description: '',
      address: 'ignored',
      show_map: true,
    });
    assert.deepEqual(keysOf(organizer), [...LEADING_KEYS, 'organizer', 'slug', 'global_id', 'global_id_lineage']);
    assert.equal(organizer.url, `${h().config.siteUrl}/organizer/bare-org/`);
    const read = (await h().request('GET', `/organizers/${organizer.id}`)).json();
    assert.deepEqual(read.json_ld, { '@type': 'Person', name: 'Bare Org', url: organizer.url });
  });

  it('returns the e-mail verbatim, without checking its format, and obfuscates it only in json_ld', async () => {
    const organizer = await create({ organizer: 'Loose Mail Org', email: 'not really an e-mail' });
    assert.equal(organizer.email, 'not really an e-mail');
    const read = (await h().request('GET', `/organizers/${organizer.id}`)).json();
    assert.equal(read.email, 'not really an e-mail');
    assert.equal(decodeEntities(read.json_ld.email), 'not really an e-mail');
    assert.doesNotMatch(read.json_ld.email, /not really/);
    assert.equal((await update(organizer.id, { email: 'press@example.com' })).json().email, 'press@example.com');
  });

  it('uses the website as the json_ld url when there is one', async () => {
    const organizer = await create({ organizer: 'Linked Org', website: 'https://linked.example/' });
    const read = (await h().request('GET', `/organizers/${organizer.id}`)).json();
    assert.equal(read.json_ld.url, 'https://linked.example/');
    assert.equal(read.json_ld.sameAs, 'https://linked.example/');
  });

  it('validates website: empty or an absolute http(s) URL', async () => {
    for (const website of ['notaurl', 'www.example.com', 'mailto:org@example.com', 7]) {
      assertInvalidParams(
        await h().request('POST', '/organizers', { as: h().users.editor, body: { organizer: 'Web Org', website } }),
        ['website'],
      );
    }
    const organizer = await create({ organizer: 'Web Org', website: 'http://example.com' });
    assert.equal(organizer.website, 'http://example.com');
    assert.equal('website' in (await update(organizer.id, { website: '' })).json(), false);
  });

  it('takes an image as venues do (D6), and keeps it when an update omits it', async () => {
    const organizer = await create({ organizer: 'Pictured Org', image: 'https://cdn.example.com/org.gif' });
    assert.deepEqual(keysOf(organizer).slice(8, 11), ['organizer', 'slug', 'image']);
    assert.equal(organizer.image.extension, 'gif');
    assert.deepEqual((await update(organizer.id, { phone: '5' })).json().image, organizer.image);
    assertInvalidParams(await update(organizer.id, { image: organizer.id }), ['image']);
    assert.equal('image' in (await update(organizer.id, { image: '' })).json(), false);
  });

  it('searches title, content, phone, e-mail and website (§6)', async () => {
    const byMail = await create({ organizer: 'Mail Org', email: 'press@aurora-events.example' });
    const byWebsite = await create({ organizer: 'Site Org', website: 'https://tickets.example/boxoffice' });
    const byPhone = await create({ organizer: 'Phone Org', phone: '+39 06 1234 5678' });
    const ids = async (search: string) =>
      idsOf((await h().request('GET', '/organizers', { query: { search } })).json().organizers);
    assert.deepEqual(await ids('aurora-events'), [byMail.id]);
    assert.deepEqual(await ids('BOXOFFICE'), [byWebsite.id]);
    assert.deepEqual(await ids('5678 1234'), [byPhone.id]);
    assert.deepEqual(await ids('press tickets'), []);
  });
});
