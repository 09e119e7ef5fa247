// D26: iCalendar feeds under load. The whole seeded set (10,000 events by default, ICAL_MAX_EVENTS) in one feed is
// several MiB, above what the read cache keeps, so every request builds it from the database: the target is an answer
// within 1 s, measured with one connection (latency, not throughput). A calendar app polling with If-None-Match gets
// a 304 (measured too, anonymous and authenticated). Single-event files vary over every seeded event.
import { seededRandom } from '../random.ts';
import type { BenchContext, Scenario } from '../scenario.ts';

export function scenarios(context: BenchContext): Scenario[] {
  const { eventIds, firstDay } = context.seeded;
  const next = seededRandom(11);
  const everything = `${context.api}/events.ics?start_date=${firstDay}&end_date=${context.seeded.lastDay}`;
  return [
    { name: `GET /events.ics (all ${eventIds.length} events, 1 connection)`, url: everything, connections: 1 },
    {
      name: 'GET /events.ics (default window: from 30 days ago, 1 connection)',
      url: `${context.api}/events.ics`,
      connections: 1,
    },
    // `*` matches whatever the current tag is (write scenarios may have changed the feed). The first poll writes the
    // feed and remembers its tag (ical/feed-tags.ts); the later ones are answered 304 from that tag, and from the read
    // cache within a second of one another (one URL repeated: reported as cache hits). An authenticated poll is never
    // answered by the read cache: it measures the feed tags alone.
    {
      name: `GET /events.ics (all ${eventIds.length} events, If-None-Match: *, 304, 1 connection) (cache hit)`,
      url: everything,
      connections: 1,
      headers: { 'If-None-Match': '*' },
    },
    {
      name: `GET /events.ics (all ${eventIds.length} events, authenticated, If-None-Match: *, 304 from the feed's tag, 1 connection)`,
      url: everything,
      connections: 1,
      headers: { 'If-None-Match': '*', authorization: context.authorization },
    },
    {
      name: `GET /events/{id}.ics (one event, varied over ${eventIds.length} events)`,
      url: `${context.api}/events/${eventIds[0]}.ics`,
      makePath: () => `${new URL(context.api).pathname}/events/${eventIds[Math.floor(next() * eventIds.length)]}.ics`,
    },
  ];
}
