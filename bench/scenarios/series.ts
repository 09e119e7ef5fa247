// D25: lists with recurring series in the data. The setup creates series through the API (POST /events with a
// `recurrence`) until they add BENCH_SERIES_OCCURRENCES occurrences (default 100,000) to the seeded events, and
// reports how fast that went; the scenarios then read varied list pages over the weeks the series cover, with and
// without collapse_series. Run last (modules load in name order), so the other scenarios measure the seeded data alone.
import { seededRandom } from '../random.ts';
import type { BenchContext, Scenario } from '../scenario.ts';

const OCCURRENCES_PER_SERIES = 700;

export function scenarios(context: BenchContext): Scenario[] {
  const wanted = Number(process.env.BENCH_SERIES_OCCURRENCES ?? 100_000);
  const seriesCount = Math.max(1, Math.ceil(wanted / OCCURRENCES_PER_SERIES));
  const next = seededRandom(7);
  const start = new Date();
  const day = (offset: number) => new Date(start.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  let created = false;

  const createSeries = async () => {
    if (created) return;
    created = true;
    const begun = performance.now();
    for (let index = 0; index < seriesCount; index++) {
      const response = await fetch(`${context.api}/events`, {
        method: 'POST',
        headers: { authorization: context.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Bench series ${index}`,
          status: 'publish',
          timezone: 'Europe/Berlin',
          categories: ['jazzs'],
          start_date: `${day(index % 30)} ${String(8 + (index % 12)).padStart(2, '0')}:00:00`,
          end_date: `${day(index % 30)} ${String(9 + (index % 12)).padStart(2, '0')}:30:00`,
          recurrence: [`RRULE:FREQ=DAILY;COUNT=${OCCURRENCES_PER_SERIES}`],
        }),
      });
      if (response.status !== 201) throw new Error(`series create: ${response.status} ${await response.text()}`);
    }
    const seconds = (performance.now() - begun) / 1000;
    console.log(
      `created ${seriesCount} series × ${OCCURRENCES_PER_SERIES} occurrences (${seriesCount * OCCURRENCES_PER_SERIES} in all) in ${seconds.toFixed(1)} s: ${Math.round(seriesCount / seconds)} series/s, ${Math.round((seriesCount * OCCURRENCES_PER_SERIES) / seconds)} occurrences/s`,
    );
  };

  const windowPath = (collapse: boolean) => () => {
    const from = Math.floor(next() * 600);
    const page = 1 + Math.floor(next() * 3);
    return `${new URL(context.api).pathname}/events?start_date=${day(from)}&end_date=${day(from + 7)}&per_page=20&page=${page}${collapse ? '&collapse_series=true' : ''}`;
  };

  return [
    {
      name: `GET /events, random week and page, with ${seriesCount * OCCURRENCES_PER_SERIES} series occurrences (varied)`,
      url: context.api,
      makePath: windowPath(false),
      setup: createSeries,
    },
    {
      name: 'GET /events?collapse_series=true, random week and page, with series (varied)',
      url: context.api,
      makePath: windowPath(true),
      setup: createSeries,
    },
  ];
}
