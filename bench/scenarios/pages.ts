// D28: the public pages under load. The first scenario varies over every seeded event (`event-<n>` slugs), so the read
// cache (one second per URL) rarely answers: it measures rendering an event page from the database.
import { seededRandom } from '../random.ts';
import type { BenchContext, Scenario } from '../scenario.ts';

export function scenarios(context: BenchContext): Scenario[] {
  const events = context.seeded.eventIds.length;
  const next = seededRandom(7);
  const now = new Date();
  const month = (offset: number) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
    return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
  };
  return [
    {
      name: `GET /event/<slug>/ (page, varied over ${events} events)`,
      url: `${context.site}/event/event-1/`,
      makePath: () => `/event/event-${1 + Math.floor(next() * events)}/`,
    },
    {
      // The read cache keeps an anonymous answer for one second: traffic concentrated on 100 popular events is mostly
      // answered from it (reported as such).
      name: 'GET /event/<slug>/ (page, 100 popular events: mostly read-cache hits)',
      url: `${context.site}/event/event-1/`,
      makePath: () => `/event/event-${1 + Math.floor(next() * Math.min(100, events))}/`,
    },
    // Fifty pages and twelve months asked for thousands of times a second: mostly read-cache hits too.
    {
      name: 'GET /events/page/N/ (page, upcoming list, pages 1–50: mostly read-cache hits)',
      url: `${context.site}/events/`,
      makePath: () => `/events/page/${1 + Math.floor(next() * 50)}/`,
    },
    {
      name: 'GET /events/month/YYYY-MM/ (page, the next 12 months: mostly read-cache hits)',
      url: `${context.site}/events/month/${month(0)}/`,
      makePath: () => `/events/month/${month(Math.floor(next() * 12))}/`,
    },
  ];
}
