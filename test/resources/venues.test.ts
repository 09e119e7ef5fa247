// Venues: the shared linked-post behaviours, then what only venues have (§3.2, §6, §7, D4, D6, D13).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { linkedPostSuite } from './linked-post-suite.ts';
import { assertInvalidParams, comparable, createLinked, idsOf, keysOf, LEADING_KEYS, readExample } from './support.ts';

linkedPostSuite({
  title: 'Venues',
  collection: 'venues',
  nameKey: 'venue',
  other: 'organizers',
  searchableField: 'address',
  messages: {
    notAccessible: ['venue-not-accessible', 'The requested venue is not accessible'],
    inTrash: ['venue-is-in-trash', 'The venue is already trashed'],
    pageNotFound: ['venue-archive-page-not-found', 'The requested venue archive page does not exist'],
  },
});

describeEachDatabase('Venues: the recorded examples', (h) => {
  const created = readExample('04-create-venue.json');
  const single = readExample('18-get-venue.json');
  const listed = readExample('11-list-venues.json');
  let id = 0;

  it('creates the venue of example 04 with the same object, key for key (ids, author and clock aside)', async () => {
    const response = await h().request('POST', '/venues', { as: h().users.administrator, body: created.request.body });
    assert.equal(response.statusCode, created.response.status);
    assert.deepEqual(comparable(response.json()), comparable(created.response.body));
    assert.equal(response.json().author, String(h().users.administrator.id));
    assert.equal(response.headers.allow, created.response.headers.Allow);
    assert.equal(response.headers['cache-control'], created.response.headers['Cache-Control']);
    id = response.json().id;
    assert.equal(response.json().global_id, `127.0.0.1?id=${id}`);
  });

  it('reads it back as example 18: the same keys in the same order, json_ld before the map flags', async () => {
    const response = await h().request('GET', `/venues/${id}`);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(keysOf(body), keysOf(single.response.body));
    const { json_ld: jsonLd, ...rest } = body;
    const { json_ld: expectedJsonLd, ...expectedRest } = single.response.body;
    assert.deepEqual(comparable(rest), comparable(expectedRest));
    // §3.9: json_ld is best effort; the reference's empty url and trailing "\n" are not copied.
    assert.deepEqual(keysOf(jsonLd), keysOf(expectedJsonLd));
    assert.equal(jsonLd['@type'], 'Place');
    assert.equal(jsonLd.name, expectedJsonLd.name);
    assert.equal(jsonLd.description, '&lt;p&gt;A sample venue&lt;/p&gt;');
    assert.equal(jsonLd.url, body.url);
    assert.deepEqual(jsonLd.address, expectedJsonLd.address);
    assert.equal(jsonLd.telephone, expectedJsonLd.telephone);
    assert.equal(jsonLd.sameAs, expectedJsonLd.sameAs);
    assert.equal(response.headers.allow, single.response.headers.Allow);
  });

  it('lists it as example 11: the envelope, the headers and the item without json_ld', async () => {
    const response = await h().request('GET', '/venues');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(keysOf(body), keysOf(listed.response.body));
    assert.equal(body.rest_url, listed.response.body.rest_url);
    assert.equal(body.total, 1);
    assert.equal(body.total_pages, 1);
    assert.deepEqual(body.venues.map(comparable), listed.response.body.venues.map(comparable));
    assert.equal(response.headers['x-tec-total'], listed.response.headers['X-TEC-Total']);
    assert.equal(response.headers['x-tec-totalpages'], listed.response.headers['X-TEC-TotalPages']);
    assert.equal(response.headers.allow, listed.response.headers.Allow);
  });
});

describeEachDatabase('Venues: fields', (h) => {
  const create = (body: Record<string, unknown>, as = h().users.editor) => createLinked(h(), 'venues', body, as);
  const update = (id: number, body: Record<string, unknown>) =>
    h().request('PATCH', `/venues/${id}`, { as: h().users.editor, body });

  it('leaves out every empty field, keeping the map flags and global ids (§3.2)', async () => {
    const venue = await create({ venue: 'Bare Venue', address: '', city: '', phone: '', website: '', description: '' });
    assert.deepEqual(keysOf(venue), [
      ...LEADING_KEYS,
      'venue',
      'slug',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(venue.show_map, true);
    assert.equal(venue.show_map_link, true);
    assert.deepEqual(venue.global_id_lineage, [venue.global_id]);
    const read = (await h().request('GET', `/venues/${venue.id}`)).json();
    assert.deepEqual(keysOf(read), [
      ...LEADING_KEYS,
      'venue',
      'slug',
      'json_ld',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    assert.deepEqual(read.json_ld, { '@type': 'Place', name: 'Bare Venue', url: venue.url });
  });

  it('keeps "0" out as WordPress does, but stores numbers sent for text fields as text', async () => {
    const venue = await create({ venue: 'Numbers Venue', zip: 12345, phone: '0', address: 0 });
    assert.equal(venue.zip, '12345');
    assert.equal('phone' in venue, false, 'a "0" value is empty (§3.2)');
    assert.equal('address' in venue, false);
    for (const field of ['address', 'city', 'zip', 'phone', 'stateprovince']) {
      assertInvalidParams(
        await h().request('POST', '/venues', {
          as: h().users.editor,
          body: { venue: 'Bad Field', [field]: { nested: true } },
        }),
        [field],
      );
      assertInvalidParams(
        await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Bad Field', [field]: ['a'] } }),
        [field],
      );
    }
  });

  it('stores text fields as plain text: tags removed, whitespace trimmed, entities kept as characters', async () => {
    const venue = await create({
      venue: 'Tagged Venue',
      address: '  <b>1</b> Main   St <script>alert(1)</script> ',
      city: 'Smith &amp; Sons <img src=x onerror=alert(1)>',
      phone: '<a href="javascript:x">555</a>',
      stateprovince: 'A & B',
    });
    assert.equal(venue.address, '1 Main St');
    assert.equal(venue.city, 'Smith & Sons');
    assert.equal(venue.phone, '555');
    assert.equal(venue.stateprovince, 'A & B');
    const read = (await h().request('GET', `/venues/${venue.id}`)).json();
    assert.equal(read.json_ld.address.streetAddress, '1 Main St');
  });

  it('derives stateprovince on create from the state for US addresses, else from the province (§7.2)', async () => {
    const cases: Array<[Record<string, string>, string | undefined]> = [
      [{ state: 'IL', country: 'United States' }, 'IL'],
      [{ state: 'IL', country: 'US' }, 'IL'],
      [{ state: 'IL' }, 'IL'],
      [{ state: 'IL', province: 'ignored', country: '' }, 'IL'],
      [{ province: 'RM', country: 'Italy' }, 'RM'],
      [{ state: 'Bavaria', province: 'BY', country: 'Germany' }, 'BY'],
      [{ state: 'Bavaria', country: 'Germany' }, undefined],
      [{ state: 'IL', country: 'United States', stateprovince: 'Illinois' }, 'Illinois'],
      [{ province: 'ON', stateprovince: 'Ontario' }, 'Ontario'],
    ];
    let index = 0;
    for (const [fields, expected] of cases) {
      const venue = await create({ venue: `State Venue ${index++}`, ...fields });
      assert.equal(venue.stateprovince, expected, JSON.stringify(fields));
      for (const [key, value] of Object.entries(fields)) if (value !== '') assert.equal(venue[key], value);
    }
  });

  it('keeps stateprovince, show_map, show_map_link and image when an update omits them (D4)', async () => {
    const venue = await create({
      venue: 'Keeper Venue',
      state: 'IL',
      country: 'United States',
      show_map: 'false',
      show_map_link: false,
      image: 'https://cdn.example.com/keeper.png',
    });
    assert.equal(venue.stateprovince, 'IL');
    assert.equal(venue.show_map, false);
    assert.equal(venue.show_map_link, false);
    const updated = (await update(venue.id, { zip: '00101', state: 'TX' })).json();
    assert.equal(updated.zip, '00101');
    assert.equal(updated.state, 'TX');
    assert.equal(updated.stateprovince, 'IL', 'stateprovince changes only when sent');
    assert.equal(updated.show_map, false);
    assert.equal(updated.show_map_link, false);
    assert.deepEqual(updated.image, venue.image);

    const changed = (await update(venue.id, { stateprovince: 'TX', show_map: 'yes', show_map_link: '1' })).json();
    assert.equal(changed.stateprovince, 'TX');
    assert.equal(changed.show_map, true);
    assert.equal(changed.show_map_link, true);
    const cleared = (await update(venue.id, { stateprovince: '' })).json();
    assert.equal('stateprovince' in cleared, false);
  });

  it('defaults show_map and show_map_link to true and reads them as truthy strings (§7.2)', async () => {
    const cases: Array<[unknown, boolean]> = [
      [undefined, true],
      ['true', true],
      ['1', true],
      ['yes', true],
      ['on', true],
      [true, true],
      [1, true],
      ['false', false],
      ['0', false],
      ['', false],
      ['no', false],
      [false, false],
      [0, false],
    ];
    let index = 0;
    for (const [value, expected] of cases) {
      const body: Record<string, unknown> = { venue: `Map Venue ${index++}` };
      if (value !== undefined) body.show_map = body.show_map_link = value;
      const venue = await create(body);
      assert.equal(venue.show_map, expected, `show_map ${JSON.stringify(value)}`);
      assert.equal(venue.show_map_link, expected, `show_map_link ${JSON.stringify(value)}`);
    }
    const form = await h().request('POST', '/venues', {
      as: h().users.editor,
      form: { venue: 'Form Map Venue', show_map: 'false' },
    });
    assert.equal(form.json().show_map, false);
    assert.equal(form.json().show_map_link, true);
    assertInvalidParams(
      await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Bad Map', show_map: { x: 1 } } }),
      ['show_map'],
    );
  });

  it('validates website: empty or an absolute http(s) URL', async () => {
    for (const website of [
      'foo',
      'example.com',
      'javascript:alert(1)',
      '//example.com/x',
      'http://',
      42,
      ['https://example.com'],
    ]) {
      assertInvalidParams(
        await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Web Venue', website } }),
        ['website'],
      );
    }
    const venue = await create({ venue: 'Web Venue', website: 'https://example.com/hall?x=1&y=2' });
    assert.equal(venue.website, 'https://example.com/hall?x=1&y=2');
    assertInvalidParams(await update(venue.id, { website: 'nope' }), ['website']);
    assert.equal((await update(venue.id, { website: '' })).json().website, undefined);
  });
});

describeEachDatabase('Venues: images (D6)', (h) => {
  const create = (body: Record<string, unknown>) => createLinked(h(), 'venues', body);
  const update = (id: number, body: Record<string, unknown>) =>
    h().request('PATCH', `/venues/${id}`, { as: h().users.editor, body });

  it('stores an image URL as an image record with its own id from the shared sequence', async () => {
    const venue = await create({ venue: 'Pictured Hall', image: 'https://cdn.example.com/pics/Hall.JPG' });
    assert.deepEqual(keysOf(venue.image), ['url', 'id', 'extension']);
    assert.equal(venue.image.url, 'https://cdn.example.com/pics/Hall.JPG');
    assert.equal(venue.image.extension, 'jpg');
    assert.notEqual(venue.image.id, venue.id);
    assert.deepEqual(keysOf(venue).slice(8, 11), ['venue', 'slug', 'image']);
    assertInvalidParams(await h().request('GET', `/venues/${venue.image.id}`), ['id']);
    assertInvalidParams(await h().request('GET', `/organizers/${venue.image.id}`), ['id']);

    const sameUrl = await create({ venue: 'Second Pictured Hall', image: 'https://cdn.example.com/pics/Hall.JPG' });
    assert.deepEqual(sameUrl.image, venue.image, 'a known URL reuses its record');
    const byId = await create({ venue: 'Third Pictured Hall', image: venue.image.id });
    assert.deepEqual(byId.image, venue.image);
    const byIdString = await create({ venue: 'Fourth Pictured Hall', image: String(venue.image.id) });
    assert.deepEqual(byIdString.image, venue.image);
  });

  it('refuses anything that is not an http(s) URL or the id of an image record', async () => {
    const other = await create({ venue: 'Not An Image' });
    for (const image of [
      'not a url',
      'ftp://example.com/a.png',
      'javascript:alert(1)',
      999999,
      '999999',
      other.id,
      -1,
      true,
      { url: 'https://x.example/a.png' },
      ['https://x.example/a.png'],
    ]) {
      const response = await h().request('POST', '/venues', {
        as: h().users.editor,
        body: { venue: 'Bad Image Venue', image },
      });
      assertInvalidParams(response, ['image']);
    }
    const list = await h().request('GET', '/venues', { as: h().users.editor, query: { search: 'Bad Image Venue' } });
    assert.equal(list.json().total, 0);
  });

  it('replaces the image on update, keeps it when omitted and removes it with "", 0 or false', async () => {
    const venue = await create({ venue: 'Changing Picture', image: 'https://cdn.example.com/one.png' });
    const replaced = (await update(venue.id, { image: 'https://cdn.example.com/two.webp' })).json();
    assert.equal(replaced.image.url, 'https://cdn.example.com/two.webp');
    assert.equal(replaced.image.extension, 'webp');
    assert.deepEqual((await update(venue.id, { phone: '1' })).json().image, replaced.image);
    for (const empty of ['', 0, false]) {
      await update(venue.id, { image: venue.image.id });
      const cleared = (await update(venue.id, { image: empty })).json();
      assert.equal('image' in cleared, false, `image ${JSON.stringify(empty)}`);
    }
    const stillThere = await create({ venue: 'Shares The Picture', image: venue.image.id });
    assert.equal(
      stillThere.image.url,
      'https://cdn.example.com/one.png',
      'removing an image from one item keeps the record',
    );
  });
});

describeEachDatabase('Venues: coordinates (D13)', (h) => {
  const create = (body: Record<string, unknown>) => createLinked(h(), 'venues', body);
  const update = (id: number, body: Record<string, unknown>) =>
    h().request('PATCH', `/venues/${id}`, { as: h().users.editor, body });

  it('returns stored coordinates as numbers after stateprovince, 0 included, and in json_ld', async () => {
    const venue = await create({ venue: 'Geo Venue', province: 'MI', geo_lat: '45.4642', geo_lng: 9.19 });
    assert.equal(venue.geo_lat, 45.4642);
    assert.equal(venue.geo_lng, 9.19);
    assert.deepEqual(
      keysOf(venue).slice(keysOf(venue).indexOf('stateprovince'), keysOf(venue).indexOf('stateprovince') + 4),
      ['stateprovince', 'geo_lat', 'geo_lng', 'show_map'],
    );
    const read = (await h().request('GET', `/venues/${venue.id}`)).json();
    assert.deepEqual(read.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 45.4642, longitude: 9.19 });

    const zero = await create({ venue: 'Null Island', geo_lat: 0, geo_lng: '0' });
    assert.equal(zero.geo_lat, 0);
    assert.equal(zero.geo_lng, 0);
    const listed = (await h().request('GET', '/venues', { query: { search: 'Null Island' } })).json().venues[0];
    assert.equal(listed.geo_lat, 0);
    assert.equal(listed.geo_lng, 0);

    const none = await create({ venue: 'Nowhere Venue' });
    assert.equal('geo_lat' in none, false);
    assert.equal('geo_lng' in none, false);
  });

  it('accepts the range limits and refuses values outside them or not numbers', async () => {
    const edge = await create({ venue: 'Edge Venue', geo_lat: -90, geo_lng: 180 });
    assert.equal(edge.geo_lat, -90);
    assert.equal(edge.geo_lng, 180);
    const bad: Array<[string, unknown]> = [
      ['geo_lat', 90.0001],
      ['geo_lat', -91],
      ['geo_lng', 180.5],
      ['geo_lng', -181],
      ['geo_lat', 'north'],
      ['geo_lng', 'Infinity'],
      ['geo_lat', '1e400'],
      ['geo_lat', true],
      ['geo_lng', [1]],
      ['geo_lat', ' '],
    ];
    for (const [name, value] of bad) {
      const body = { venue: 'Out Of Range', geo_lat: 10, geo_lng: 10, [name]: value };
      assertInvalidParams(await h().request('POST', '/venues', { as: h().users.editor, body }), [name]);
    }
  });

  it('wants both or neither: one alone is 400 naming the other, before any permission check', async () => {
    for (const as of [h().users.editor, null, h().users.subscriber]) {
      const latOnly = await h().request('POST', '/venues', { as, body: { venue: 'Half Geo', geo_lat: 10 } });
      assertInvalidParams(latOnly, ['geo_lng']);
      assert.equal(latOnly.json().data.details.geo_lng.code, 'rest_missing_coordinate');
      assertInvalidParams(await h().request('POST', '/venues', { as, body: { venue: 'Half Geo', geo_lng: 10 } }), [
        'geo_lat',
      ]);
    }
    const venue = await create({ venue: 'Pair Venue', geo_lat: 1, geo_lng: 2 });
    assertInvalidParams(await h().request('PATCH', `/venues/${venue.id}`, { body: { geo_lat: 5 } }), ['geo_lng']);
    assertInvalidParams(await update(venue.id, { geo_lat: '', geo_lng: 3 }), ['geo_lat']);
    assertInvalidParams(await update(venue.id, { geo_lat: 3, geo_lng: '' }), ['geo_lng']);
    const unchanged = (await h().request('GET', `/venues/${venue.id}`)).json();
    assert.equal(unchanged.geo_lat, 1);
    assert.equal(unchanged.geo_lng, 2);
  });

  it('keeps coordinates when an update omits them, changes them as a pair and clears both with ""', async () => {
    const venue = await create({ venue: 'Moving Venue', geo_lat: 1, geo_lng: 2 });
    assert.equal((await update(venue.id, { city: 'Milan' })).json().geo_lat, 1);
    const moved = (await update(venue.id, { geo_lat: -33.8688, geo_lng: 151.2093 })).json();
    assert.equal(moved.geo_lat, -33.8688);
    assert.equal(moved.geo_lng, 151.2093);
    const cleared = (await update(venue.id, { geo_lat: '', geo_lng: '' })).json();
    assert.equal('geo_lat' in cleared, false);
    assert.equal('geo_lng' in cleared, false);
    assert.equal((await h().request('GET', `/venues/${venue.id}`)).json().json_ld.geo, undefined);
  });
});

describeEachDatabase('Venues: search fields (§6)', (h) => {
  const ids = async (search: string) =>
    idsOf((await h().request('GET', '/venues', { query: { search } })).json().venues).sort((a, b) => a - b);

  it('looks into title, content, address, city, province, state, stateprovince, zip and phone, and nothing else', async () => {
    const temple = await createLinked(h(), 'venues', {
      venue: 'Le Temple',
      address: '100, Avenue du Temple',
      city: 'Paris',
      country: 'France',
    });
    const london = await createLinked(h(), 'venues', {
      venue: 'Big Hall',
      city: 'London',
      zip: 'EC1A 1BB',
      phone: '+44 20 7946 0000',
    });
    const state = await createLinked(h(), 'venues', {
      venue: 'State Hall',
      state: 'Oklahoma',
      country: 'United States',
    });
    const province = await createLinked(h(), 'venues', {
      venue: 'Province Hall',
      province: 'Manitoba',
      country: 'Canada',
    });
    const stateprovince = await createLinked(h(), 'venues', { venue: 'Region Hall', stateprovince: 'Wallonia' });
    const hidden = await createLinked(h(), 'venues', {
      venue: 'Hidden Hall',
      country: 'Narnia',
      website: 'https://wardrobe.example',
    });

    assert.deepEqual(await ids('temple avenue'), [temple.id], 'address "100, Avenue du Temple" holds both words');
    assert.deepEqual(await ids('london'), [london.id]);
    assert.deepEqual(await ids('ec1a'), [london.id]);
    assert.deepEqual(await ids('7946'), [london.id]);
    assert.deepEqual(await ids('oklahoma'), [state.id], 'state (and the stateprovince derived from it)');
    assert.deepEqual(await ids('manitoba'), [province.id]);
    assert.deepEqual(await ids('wallonia'), [stateprovince.id]);
    assert.deepEqual(await ids('narnia'), [], 'country is not searched');
    assert.deepEqual(await ids('wardrobe'), [], 'website is not searched for venues');
    assert.deepEqual(await ids('temple paris'), [], 'address and city are different fields');
    assert.ok(hidden.id > 0);
  });
});
