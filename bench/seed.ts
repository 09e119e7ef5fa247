import { DateTime } from 'luxon';
import { formatWp } from '../src/domain/dates/stored-format.ts';
import {
  insertEventsBulk,
  insertOrganizersBulk,
  insertTermsBulk,
  insertVenuesBulk,
  firstLoad,
  type BulkEventInput,
} from '../src/core/bulk-load/bulk.ts';
import type { Store } from '../src/store/store.ts';
import { seededRandom } from './random.ts';

const WORDS = [
  'Jazz',
  'Concert',
  'Workshop',
  'Market',
  'Festival',
  'Lecture',
  'Yoga',
  'Theatre',
  'Tasting',
  'Meetup',
  'Run',
  'Exhibition',
];
const CITIES = ['Springfield', 'Rome', 'Zürich', 'Lyon', 'Porto', 'Austin', 'Kyoto', 'Oslo'];
const ZONES = ['UTC', 'America/New_York', 'Europe/Rome', 'Asia/Tokyo'];
const BATCH = 10_000;

function progress(label: string, done: number, total: number, startedAt: number): void {
  if (!process.stderr.isTTY && done !== total && done % 100_000 !== 0) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  const rate = Math.round(done / Math.max((Date.now() - startedAt) / 1000, 0.001));
  process.stderr.write(
    `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${rate}/s)${done === total ? '\n' : ''}`,
  );
}

export interface SeedResult {
  eventIds: number[];
  venueCount: number;
  venueIds: number[];
  organizerIds: number[];
  categoryIds: number[];
  tagIds: number[];
  /** Words that occur in titles and contents (search terms of varied lists). */
  words: string[];
  /** The first and last local day of the seeded events (`YYYY-MM-DD`). */
  firstDay: string;
  lastDay: string;
  eventsPerSecond: number;
  sampleCategory: string;
}

/** N events over seven years (two past, five ahead) with venues, organizers, categories and tags. */
export async function seed(
  store: Store,
  events: number,
  authorId: number,
  options: { deferIndexes: boolean },
  now = DateTime.utc(),
): Promise<SeedResult> {
  const next = seededRandom(42);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const stamp = { utc: formatWp(now), local: formatWp(now) };
  const published = { utc: formatWp(now.minus({ days: 30 })), local: formatWp(now.minus({ days: 30 })) };

  const categoryNames = WORDS.map((word) => `${word}s`).concat([
    'Family',
    'Outdoor',
    'Online',
    'Free entry',
    'Music',
    'Arts',
    'Food',
    'Sports',
  ]);
  const categories = await insertTermsBulk(store, 'event_category', categoryNames);
  const tags = await insertTermsBulk(
    store,
    'event_tag',
    Array.from({ length: 40 }, (_, index) => `tag ${index + 1}`),
  );
  const linkedCount = Math.max(10, Math.ceil(events / 20));
  // Timed from the first event to the end of the load, building the indexes of a first load included.
  let started = 0;
  const { venues, organizers, eventIds, days } = options.deferIndexes
    ? await firstLoad(store, loadLinkedAndEvents)
    : await loadLinkedAndEvents();
  const seconds = (Date.now() - started) / 1000;
  return {
    eventIds,
    venueCount: venues.length,
    venueIds: venues,
    organizerIds: organizers,
    categoryIds: categories,
    tagIds: tags,
    words: [...WORDS, ...CITIES].map((word) => word.toLowerCase()),
    firstDay: days[0],
    lastDay: days[days.length - 1],
    eventsPerSecond: Math.round(events / seconds),
    sampleCategory: 'jazzs',
  };

  async function loadLinkedAndEvents() {
    const venues = await insertVenuesBulk(
      store,
      Array.from({ length: linkedCount }, (_, index) => ({
        title: `${pick(CITIES)} Hall ${index + 1}`,
        authorId,
        published,
        city: pick(CITIES),
        country: 'Somewhere',
        address: `${index + 1} Main Street`,
        geo: { lat: next() * 120 - 60, lng: next() * 300 - 150 },
      })),
      stamp,
    );
    const organizers = await insertOrganizersBulk(
      store,
      Array.from({ length: linkedCount }, (_, index) => ({
        title: `Organizer ${index + 1}`,
        authorId,
        published,
        email: `org${index + 1}@example.com`,
        phone: '555-0100',
      })),
      stamp,
    );

    started = Date.now();
    const firstDay = now.minus({ years: 2 }).startOf('day');
    // Wall-clock dates are built from these strings rather than with date arithmetic per event: the generator should
    // cost little next to the import it measures.
    const days = Array.from({ length: 365 * 7 }, (_, index) => formatWp(firstDay.plus({ days: index })).slice(0, 10));
    const clock = (hour: number) => `${String(hour).padStart(2, '0')}:00:00`;
    const eventIds: number[] = [];
    for (let offset = 0; offset < events; offset += BATCH) {
      const batch: BulkEventInput[] = [];
      for (let index = offset; index < Math.min(events, offset + BATCH); index++) {
        const day = pick(days);
        const startHour = 8 + Math.floor(next() * 12);
        batch.push({
          title: `${pick(WORDS)} ${pick(WORDS)} ${index + 1}`,
          content: `A ${pick(WORDS).toLowerCase()} in ${pick(CITIES)}, with ${pick(WORDS).toLowerCase()} and friends.`,
          excerpt: 'Short summary.',
          slug: `event-${index + 1}`,
          authorId,
          published,
          timezone: pick(ZONES),
          start: `${day} ${clock(startHour)}`,
          end: `${day} ${clock(startHour + 1 + Math.floor(next() * 4))}`,
          cost: next() < 0.3 ? [] : [String(Math.floor(next() * 50))],
          featured: next() < 0.1,
          venueId: pick(venues),
          organizerIds: [...new Set([pick(organizers), pick(organizers)])],
          categoryIds: [...new Set([pick(categories), pick(categories)])],
          tagIds: [...new Set([pick(tags), pick(tags), pick(tags)])],
        });
      }
      eventIds.push(
        ...(await insertEventsBulk(store, batch, stamp, (done) =>
          progress('seeding events', offset + done, events, started),
        )),
      );
    }
    if (options.deferIndexes) process.stderr.write('building indexes…\n');
    return { venues, organizers, eventIds, days };
  }
}
