// A plausible small site for the photographs of the pages (screenshots.test.ts): a town's arts calendar for March 2027,
// made through the JSON API as anyone would make it. The suites' own data (support.ts) is for testing, escaping
// included, and is never photographed.
import assert from 'node:assert/strict';
import type { Harness } from '../helpers/harness.ts';

/** The service's clock while the showcase is photographed: the morning of 1 March 2027, so every photograph is the same. */
export const SHOWCASE_NOW = '2027-03-01T08:00:00Z';
export const SHOWCASE_MONTH = '2027-03';
/** How the service is configured for it. */
export const SHOWCASE_ENV = {
  VALIDATE_RESPONSES: '0',
  SITE_NAME: 'Riverside Arts Calendar',
  SITE_TIMEZONE: 'Europe/Berlin',
  CURRENCY_SYMBOL: '€',
  CURRENCY_POSITION: 'postfix',
  CURRENCY_CODE: 'EUR',
};

export interface Showcase {
  concert: Record<string, any>;
  jazz: Record<string, any>;
  preview: Record<string, any>;
  hall: Record<string, any>;
  orchestra: Record<string, any>;
}

async function post(h: Harness, path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await h.request('POST', path, { as: h.users.administrator, body });
  assert.equal(response.statusCode, 201, `${path}: ${response.body}`);
  return response.json();
}

export async function seedShowcase(h: Harness): Promise<Showcase> {
  const hall = await post(h, '/venues', {
    venue: 'Riverside Concert Hall',
    address: 'Uferstraße 12',
    city: 'Berlin',
    zip: '10557',
    country: 'Germany',
    phone: '+49 30 1234 5670',
    website: 'https://example.org/concert-hall',
    show_map_link: true,
    description: '<p>A 600-seat hall on the river, with a glass foyer that opens onto the terrace in summer.</p>',
  });
  const library = await post(h, '/venues', {
    venue: 'Old Town Library',
    address: 'Marktplatz 3',
    city: 'Berlin',
    zip: '10178',
    country: 'Germany',
    show_map_link: true,
  });
  const park = await post(h, '/venues', {
    venue: 'Lakeside Park',
    address: 'Seeweg 1',
    city: 'Berlin',
    zip: '14193',
    country: 'Germany',
  });
  const orchestra = await post(h, '/organizers', {
    organizer: 'Riverside Chamber Orchestra',
    email: 'tickets@example.org',
    phone: '+49 30 1234 5680',
    website: 'https://example.org/orchestra',
    description: '<p>Thirty musicians from the neighbourhood, playing since 1987.</p>',
  });
  const friends = await post(h, '/organizers', { organizer: 'Friends of the Library', email: 'friends@example.org' });
  const music = await post(h, '/categories', { name: 'Music', description: 'Concerts, sessions and recitals.' });
  const classical = await post(h, '/categories', { name: 'Classical', parent: music.id });
  const jazzCategory = await post(h, '/categories', { name: 'Jazz', parent: music.id });
  const family = await post(h, '/categories', { name: 'Family' });
  const talks = await post(h, '/categories', { name: 'Talks' });
  const free = await post(h, '/tags', { name: 'free entry' });
  const outdoors = await post(h, '/tags', { name: 'outdoors' });

  const concert = await post(h, '/events', {
    title: 'Spring Chamber Concert',
    start_date: '2027-03-12 19:30:00',
    end_date: '2027-03-12 21:30:00',
    timezone: 'Europe/Berlin',
    excerpt: 'Haydn, Mozart and a new piece by a local composer.',
    description:
      "<p>The Riverside Chamber Orchestra opens its spring season with Haydn's <em>Symphony No. 49</em>, Mozart's " +
      'Clarinet Concerto and the first performance of <strong>River Lights</strong>, written for the orchestra.</p>' +
      '<p>Doors open at 19:00. The bar in the foyer stays open after the concert.</p>',
    cost: '18',
    venue: hall.id,
    organizer: [orchestra.id],
    categories: [classical.id],
    image: 'https://cdn.example.com/spring-concert.png',
    website: 'https://example.org/orchestra/spring',
  });
  const jazz = await post(h, '/events', {
    title: 'Jazz in the Foyer',
    start_date: '2027-03-05 20:00:00',
    end_date: '2027-03-05 22:30:00',
    timezone: 'Europe/Berlin',
    excerpt: 'Friday sessions with a house trio and guests.',
    description: '<p>A house trio and a guest each week. Bring friends.</p>',
    cost: '8',
    venue: hall.id,
    categories: [jazzCategory.id],
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=FR'],
  });
  await post(h, '/events', {
    title: 'Saturday Farmers\u2019 Market',
    start_date: '2027-03-06 08:00:00',
    end_date: '2027-03-06 13:00:00',
    timezone: 'Europe/Berlin',
    excerpt: 'Vegetables, bread, cheese and flowers from the region.',
    venue: park.id,
    tags: [free.id, outdoors.id],
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=12'],
  });
  await post(h, '/events', {
    title: 'Storytime for Little Readers',
    start_date: '2027-03-03 10:00:00',
    end_date: '2027-03-03 10:45:00',
    timezone: 'Europe/Berlin',
    excerpt: 'Picture books read aloud, for ages 3 to 6.',
    venue: library.id,
    organizer: [friends.id],
    categories: [family.id],
    tags: [free.id],
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=10'],
  });
  await post(h, '/events', {
    title: 'Author Talk: Rivers of Europe',
    start_date: '2027-03-17 18:30:00',
    end_date: '2027-03-17 20:00:00',
    timezone: 'Europe/Berlin',
    excerpt: 'A travel writer on ten rivers and the towns along them.',
    cost: '5',
    venue: library.id,
    organizer: [friends.id],
    categories: [talks.id],
  });
  await post(h, '/events', {
    title: 'City Arts Festival',
    start_date: '2027-03-19 11:00:00',
    end_date: '2027-03-21 18:00:00',
    timezone: 'Europe/Berlin',
    excerpt: 'Three days of music, theatre and open workshops all over town.',
    venue: park.id,
    categories: [music.id, family.id],
    tags: [outdoors.id],
  });
  await post(h, '/events', {
    title: 'Open Studios Weekend',
    start_date: '2027-03-27 00:00:00',
    end_date: '2027-03-28 23:59:59',
    all_day: true,
    timezone: 'Europe/Berlin',
    excerpt: 'Forty artists open their studios to visitors.',
    tags: [free.id],
  });
  await post(h, '/events', {
    title: 'Live from Sydney: Harbour Sessions',
    start_date: '2027-03-24 19:00:00',
    end_date: '2027-03-24 20:30:00',
    timezone: 'Australia/Sydney',
    excerpt: 'A concert streamed live from Sydney, shown on the big screen in the foyer.',
    venue: hall.id,
    categories: [music.id],
  });
  const preview = await post(h, '/events', {
    title: 'Members\u2019 Preview Evening',
    start_date: '2027-03-10 18:00:00',
    end_date: '2027-03-10 20:00:00',
    timezone: 'Europe/Berlin',
    description: '<p>The season programme, presented to members first.</p>',
    password: 'riverside',
    venue: hall.id,
    organizer: [orchestra.id],
  });
  return { concert, jazz, preview, hall, orchestra };
}
