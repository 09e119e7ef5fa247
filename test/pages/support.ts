// What the page suites share: a small site created through the JSON API (never the store), and page requests.
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import type { Harness } from '../helpers/harness.ts';

export interface Site {
  /** `YYYY-MM` of next month, where the site's events take place. */
  month: string;
  concert: Record<string, any>;
  festival: Record<string, any>;
  secret: Record<string, any>;
  draft: Record<string, any>;
  script: Record<string, any>;
  hidden: Record<string, any>;
  venue: Record<string, any>;
  organizer: Record<string, any>;
  parent: Record<string, any>;
  child: Record<string, any>;
  tag: Record<string, any>;
  password: string;
}

async function post(h: Harness, path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await h.request('POST', path, { as: h.users.administrator, body });
  assert.equal(response.statusCode, 201, `${path}: ${response.body}`);
  return response.json();
}

/** Next month's events: a concert (venue, organizer, child category, tag), a three-day festival, a protected event, a draft. */
export async function seedSite(h: Harness): Promise<Site> {
  const next = DateTime.utc().plus({ months: 1 }).startOf('month');
  const month = next.toFormat('yyyy-MM');
  const day = (n: number, time: string) => `${next.plus({ days: n - 1 }).toFormat('yyyy-MM-dd')} ${time}`;
  const venue = await post(h, '/venues', {
    venue: 'Sample Hall',
    address: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    zip: '62701',
    country: 'United States',
    phone: '555-0100',
    website: 'https://example.com/hall',
    show_map_link: true,
    description: 'A <em>fine</em> hall.',
  });
  const organizer = await post(h, '/organizers', {
    organizer: 'Jazz Society',
    email: 'jazz@example.com',
    phone: '555-0199',
    website: 'https://example.com/jazz',
  });
  const parent = await post(h, '/categories', { name: 'Music', description: 'All kinds of music.' });
  const child = await post(h, '/categories', { name: 'Jazz Nights', parent: parent.id });
  const tag = await post(h, '/tags', { name: 'outdoor' });
  const concert = await post(h, '/events', {
    title: 'Evening Concert',
    start_date: day(10, '19:30:00'),
    end_date: day(10, '22:00:00'),
    timezone: 'Europe/Rome',
    description: '<p>An <strong>evening</strong> of jazz.</p>',
    excerpt: 'Jazz under the stars.',
    cost: '25',
    venue: venue.id,
    organizer: [organizer.id],
    categories: [child.id],
    tags: [tag.id],
    show_map_link: true,
    image: 'https://cdn.example.com/concert.png',
    website: 'https://example.com/concert?a=1&b=2',
  });
  const festival = await post(h, '/events', {
    title: 'Three Day Festival',
    start_date: day(12, '10:00:00'),
    end_date: day(14, '18:00:00'),
    timezone: 'Europe/Rome',
    description: 'Music all weekend.',
    venue: venue.id,
    categories: [parent.id],
  });
  const password = 'open sesame';
  const secret = await post(h, '/events', {
    title: 'Members Evening',
    start_date: day(16, '18:00:00'),
    end_date: day(16, '20:00:00'),
    timezone: 'Europe/Rome',
    description: 'The secret programme.',
    password,
    venue: venue.id,
  });
  const draft = await post(h, '/events', {
    title: 'Unfinished Plan',
    start_date: day(18, '09:00:00'),
    end_date: day(18, '10:00:00'),
    status: 'draft',
  });
  const script = await post(h, '/events', {
    title: '&lt;script&gt;alert(1)&lt;/script&gt; "Quoted" & more',
    start_date: day(20, '09:00:00'),
    end_date: day(20, '10:00:00'),
  });
  const hidden = await post(h, '/events', {
    title: 'Hidden Gathering',
    start_date: day(21, '09:00:00'),
    end_date: day(21, '10:00:00'),
    hide_from_listings: true,
  });
  return { month, concert, festival, secret, draft, script, hidden, venue, organizer, parent, child, tag, password };
}

/** A page request (outside the API's namespace). */
export async function page(
  h: Harness,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  payload?: string,
) {
  return h.app.inject({ method: method as 'GET', url, headers, payload });
}

/** The path of an absolute URL. */
export const pathOf = (url: string) => new URL(url).pathname;
