/**
 * The series plan (D25): what becomes of a series' occurrences when its rule or dates change, when it is split and
 * when its horizon moves. Fed with real expansions (parseRecurrence + expandForMaterialising), so the wall-clock rules
 * across DST changes are those the service uses; a seeded property test checks the plan against the rule on many
 * random daily and weekly series with random edits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localToUtc, utcToLocal } from '../../../src/domain/dates/stored-format.ts';
import { daysFromCivil, formatFloating, parseFloating } from '../../../src/domain/recurrence/civil.ts';
import {
  CANCELLED,
  expandForMaterialising,
  extensionDue,
  materialiseHorizon,
  parseRecurrence,
  planSeriesSync,
  planSplit,
  type MaterialisedRule,
  type OccurrenceTimes,
  type PlannedSeries,
  type SeriesMemberState,
  type SeriesPlan,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';
import { WEEKDAY_CODES } from '../../../src/domain/recurrence/types.ts';
import { PROPERTY_ZONES, random } from './random.ts';

const FAR = '2200-01-01 00:00:00';

type Series = SeriesStart & { startUtc: string };

function seriesOf(timezone: string, startLocal: string, endLocal: string, allDay = false): Series {
  return { timezone, allDay, startLocal, endLocal, startUtc: localToUtc(startLocal, timezone) };
}

/** The rule's occurrences as the service materialises them. */
function ruleOf(series: SeriesStart, lines: string[], horizonUtc = FAR): MaterialisedRule {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok && parsed.recurrence !== null, JSON.stringify(parsed));
  const rule = expandForMaterialising(parsed.recurrence, series, { horizonUtc, maxOccurrences: 1000 });
  assert.ok(rule.ok, JSON.stringify(rule));
  return rule;
}

const planned = (series: Series): PlannedSeries => ({
  timezone: series.timezone,
  allDay: series.allDay,
  startUtc: series.startUtc,
});

/** Ids as the post sequence gives them. */
function idSource(first = 100) {
  let next = first;
  return () => next++;
}

const memberAt = (id: number, times: OccurrenceTimes, series: Series): SeriesMemberState => ({
  id,
  occurrenceStartUtc: times.startUtc,
  overrides: [],
  startLocal: times.startLocal,
  endLocal: times.endLocal,
  timezone: series.timezone,
  allDay: series.allDay,
});

/** The members a plan leaves: deleted ones gone, moved ones on their new dates, new ones added. */
function apply(
  plan: SeriesPlan,
  members: readonly SeriesMemberState[],
  series: Series,
  nextId: () => number,
): SeriesMemberState[] {
  const deleted = new Set(plan.delete);
  const moves = new Map(plan.move.map(({ id, times }) => [id, times]));
  const after = members
    .filter((member) => !deleted.has(member.id))
    .map((member) => {
      const times = moves.get(member.id);
      return times === undefined
        ? member
        : {
            ...member,
            startLocal: times.startLocal,
            endLocal: times.endLocal,
            timezone: series.timezone,
            allDay: series.allDay,
          };
    });
  for (const times of plan.create) after.push(memberAt(nextId(), times, series));
  return after;
}

/** A new series' members: the plan from none. */
function created(series: Series, rule: MaterialisedRule, nextId = idSource()): SeriesMemberState[] {
  const plan = planSeriesSync(planned(series), rule, []);
  assert.deepEqual([plan.move, plan.delete, plan.keep], [[], [], []]);
  return apply(plan, [], series, nextId);
}

/** Every member is in exactly one of keep, move and delete. */
function assertPartition(plan: SeriesPlan, members: readonly SeriesMemberState[]): void {
  const placed = [...plan.keep, ...plan.move.map(({ id }) => id), ...plan.delete];
  assert.equal(new Set(placed).size, placed.length, 'no member in two places');
  assert.deepEqual(
    [...placed].sort((a, b) => a - b),
    members.map((member) => member.id).sort((a, b) => a - b),
    'no member lost',
  );
}

const withOverrides = (
  member: SeriesMemberState,
  overrides: string[],
  dates: Partial<SeriesMemberState> = {},
): SeriesMemberState => ({ ...member, ...dates, overrides });

// Berlin moves to summer time on 2027-03-28: 09:00 local is 08:00 UTC before, 07:00 UTC after.
const choir = seriesOf('Europe/Berlin', '2027-03-01 09:00:00', '2027-03-01 10:30:00');
const CHOIR_RULE = ['RRULE:FREQ=WEEKLY;COUNT=6'];

describe('planSeriesSync', () => {
  it('an unchanged rule gives an empty plan: every member is kept as it is', () => {
    const rule = ruleOf(choir, CHOIR_RULE);
    const members = created(choir, rule);
    assert.deepEqual(
      members.map((member) => member.occurrenceStartUtc),
      [
        '2027-03-08 08:00:00',
        '2027-03-15 08:00:00',
        '2027-03-22 08:00:00',
        '2027-03-29 07:00:00',
        '2027-04-05 07:00:00',
      ],
      "the series' own row is the first occurrence",
    );
    const plan = planSeriesSync(planned(choir), rule, members);
    assert.deepEqual(plan, {
      horizonUtc: null,
      create: [],
      move: [],
      delete: [],
      keep: members.map((member) => member.id),
    });
  });

  it("an occurrence edited on its own keeps its id and edits when the series' times move, across DST", () => {
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const [first, titled, dated] = members;
    const edited = [
      first,
      withOverrides(titled, ['title']),
      withOverrides(dated, ['dates'], { startLocal: '2027-03-16 18:00:00', endLocal: '2027-03-16 19:00:00' }),
      ...members.slice(3),
    ];
    const later = { ...choir, endLocal: '2027-03-01 11:15:00' };
    const plan = planSeriesSync(planned(later), ruleOf(later, CHOIR_RULE), edited);
    assertPartition(plan, edited);
    assert.deepEqual(plan.create, [], 'no new occurrence');
    assert.deepEqual(plan.delete, [], 'none deleted');
    assert.deepEqual(plan.keep, [dated.id], 'the one whose dates were edited keeps them');
    assert.deepEqual(
      plan.move.map(({ id }) => id),
      [first.id, titled.id, ...members.slice(3).map((member) => member.id)],
    );
    // Wall-clock times: 11:15 local on both sides of the change.
    assert.deepEqual(
      plan.move.map(({ times }) => [times.startLocal, times.endLocal, times.startUtc, times.endUtc]),
      [
        ['2027-03-08 09:00:00', '2027-03-08 11:15:00', '2027-03-08 08:00:00', '2027-03-08 10:15:00'],
        ['2027-03-15 09:00:00', '2027-03-15 11:15:00', '2027-03-15 08:00:00', '2027-03-15 10:15:00'],
        ['2027-03-29 09:00:00', '2027-03-29 11:15:00', '2027-03-29 07:00:00', '2027-03-29 09:15:00'],
        ['2027-04-05 09:00:00', '2027-04-05 11:15:00', '2027-04-05 07:00:00', '2027-04-05 09:15:00'],
      ],
    );
  });

  it('a series moved to start later keeps the ids of the members whose starts it still has', () => {
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const moved = seriesOf('Europe/Berlin', '2027-03-15 09:00:00', '2027-03-15 10:30:00');
    const plan = planSeriesSync(planned(moved), ruleOf(moved, ['RRULE:FREQ=WEEKLY;COUNT=4']), members);
    assertPartition(plan, members);
    // 2027-03-08 left the series; 2027-03-15 is now the series' own row.
    assert.deepEqual(plan.delete, [members[0].id, members[1].id]);
    assert.deepEqual(
      plan.keep,
      members.slice(2).map((member) => member.id),
    );
    assert.deepEqual([plan.create, plan.move], [[], []]);
  });

  it('a start that leaves the rule is deleted, a start new to it is created', () => {
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const shorter = planSeriesSync(planned(choir), ruleOf(choir, ['RRULE:FREQ=WEEKLY;COUNT=4']), members);
    assertPartition(shorter, members);
    assert.deepEqual(
      shorter.delete,
      members.slice(3).map((member) => member.id),
    );
    assert.deepEqual(shorter.create, []);
    const longer = planSeriesSync(planned(choir), ruleOf(choir, ['RRULE:FREQ=WEEKLY;COUNT=7']), members);
    assert.deepEqual(
      longer.create.map((times) => [times.startLocal, times.startUtc]),
      [['2027-04-12 09:00:00', '2027-04-12 07:00:00']],
    );
    assert.deepEqual([longer.move, longer.delete], [[], []]);
  });

  it('cancelled occurrences stay cancelled: never moved, deleted or created again', () => {
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const cancelled = withOverrides(members[0], [CANCELLED]);
    const stored = [cancelled, ...members.slice(1)];
    const lines = [...CHOIR_RULE, 'EXDATE:20270308T080000Z'];

    const later = { ...choir, endLocal: '2027-03-01 11:00:00' };
    const edit = planSeriesSync(planned(later), ruleOf(later, lines), stored);
    assertPartition(edit, stored);
    assert.deepEqual(edit.keep, [cancelled.id]);
    assert.ok(!edit.create.some((times) => times.startUtc === cancelled.occurrenceStartUtc), 'its start is an EXDATE');

    const single = planSeriesSync(
      planned(choir),
      ruleOf(choir, ['RRULE:FREQ=WEEKLY;COUNT=1', 'EXDATE:20270308T080000Z']),
      stored,
    );
    assert.deepEqual(single.keep, [cancelled.id], 'out of the rule, still cancelled (in the trash), not deleted');
    assert.deepEqual(
      single.delete,
      members.slice(1).map((member) => member.id),
    );

    const withoutExdate = planSeriesSync(planned(choir), ruleOf(choir, CHOIR_RULE), stored);
    assert.deepEqual(
      withoutExdate,
      { horizonUtc: null, create: [], move: [], delete: [], keep: stored.map((member) => member.id) },
      'a rule sent without its EXDATE does not bring it back',
    );
  });

  it("a second member at one start is not the series': it is deleted", () => {
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const stray = { ...members[1], id: 999 };
    const plan = planSeriesSync(planned(choir), ruleOf(choir, CHOIR_RULE), [...members, stray]);
    assert.deepEqual([plan.create, plan.move, plan.delete], [[], [], [999]]);
  });

  it('all-day series in a zone whose DST changes at midnight keep whole days when their length changes', () => {
    const market = seriesOf('America/Santiago', '2027-03-27 00:00:00', '2027-03-28 23:59:59', true);
    const lines = ['RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=5'];
    const members = created(market, ruleOf(market, lines));
    const oneDay = { ...market, endLocal: '2027-03-27 23:59:59' };
    const plan = planSeriesSync(planned(oneDay), ruleOf(oneDay, lines), members);
    assertPartition(plan, members);
    assert.deepEqual(
      plan.move.map(({ id, times }) => [id, times.startLocal, times.endLocal]),
      members.map((member) => {
        const day = member.startLocal.slice(0, 10);
        return [member.id, `${day} 00:00:00`, `${day} 23:59:59`];
      }),
    );
  });
});

describe('planSeriesSync when the horizon moves', () => {
  // New York springs forward on 2027-03-14 (02:30 does not exist: 03:30 EDT) and falls back on 2027-11-07.
  const early = seriesOf('America/New_York', '2027-01-01 02:30:00', '2027-01-01 03:00:00');
  const DAILY = ['RRULE:FREQ=DAILY'];

  it('adds only the starts after the previous horizon, once, at their wall-clock times across DST', () => {
    const first = ruleOf(early, DAILY, '2027-03-01 12:00:00');
    assert.equal(first.horizonUtc, '2027-03-01 12:00:00', 'open-ended: it goes on');
    const nextId = idSource();
    const members = created(early, first, nextId);
    assert.equal(members.length, 59, 'January 2 to March 1');

    const extended = planSeriesSync(planned(early), ruleOf(early, DAILY, '2027-04-01 12:00:00'), members);
    assert.equal(extended.horizonUtc, '2027-04-01 12:00:00');
    assert.deepEqual([extended.move, extended.delete], [[], []]);
    assert.equal(extended.create.length, 31, 'March 2 to April 1');
    assert.ok(extended.create.every((times) => times.startUtc > '2027-03-01 12:00:00'));
    const changeDay = extended.create.find((times) => times.startLocal.startsWith('2027-03-14'));
    assert.deepEqual(
      [changeDay?.startLocal, changeDay?.startUtc],
      ['2027-03-14 03:30:00', '2027-03-14 07:30:00'],
      'a start in the gap moves forward',
    );
    const after = apply(extended, members, early, nextId);
    const starts = after.map((member) => member.occurrenceStartUtc);
    assert.equal(new Set(starts).size, starts.length, 'no start twice');

    assert.deepEqual(
      extended.keep,
      members.map((member) => member.id),
      'every member stays as it is',
    );

    const again = planSeriesSync(planned(early), ruleOf(early, DAILY, '2027-04-01 12:00:00'), after);
    assert.deepEqual([again.create, again.move, again.delete], [[], [], []], 'the same horizon again adds nothing');
  });

  it('fills in a start before the previous horizon that no member holds (a series stored before finite rules were in full)', () => {
    const members = created(early, ruleOf(early, DAILY, '2027-03-01 12:00:00'));
    const missing = members[10];
    const plan = planSeriesSync(
      planned(early),
      ruleOf(early, DAILY, '2027-04-01 12:00:00'),
      members.filter((member) => member !== missing),
    );
    assert.equal(plan.create.length, 32);
    assert.equal(plan.create[0].startUtc, missing.occurrenceStartUtc);
  });

  it('in the repeated hour of a fall-back change, the first instant is the start', () => {
    const late = seriesOf('America/New_York', '2027-10-01 01:30:00', '2027-10-01 02:00:00');
    const members = created(late, ruleOf(late, DAILY, '2027-10-31 12:00:00'));
    const plan = planSeriesSync(planned(late), ruleOf(late, DAILY, '2027-11-10 12:00:00'), members);
    const changeDay = plan.create.find((times) => times.startLocal.startsWith('2027-11-07'));
    assert.deepEqual(
      [changeDay?.startLocal, changeDay?.startUtc],
      ['2027-11-07 01:30:00', '2027-11-07 05:30:00'],
      '01:30 EDT',
    );
    assert.equal(plan.create.length, 10);
  });

  it('an extra date past the horizon, already materialised, is not created again', () => {
    const lines = ['RRULE:FREQ=WEEKLY', 'RDATE:20280105T073000Z'];
    const first = ruleOf(early, lines, '2027-03-01 12:00:00');
    assert.ok(
      first.occurrences.some((times) => times.startUtc === '2028-01-05 07:30:00'),
      'RDATE listed in full',
    );
    const members = created(early, first);
    const plan = planSeriesSync(planned(early), ruleOf(early, lines, '2028-02-01 12:00:00'), members);
    assert.ok(!plan.create.some((times) => times.startUtc === '2028-01-05 07:30:00'));
    assert.deepEqual(
      plan.keep,
      members.map((member) => member.id),
    );
  });
});

describe('planSplit', () => {
  it('partitions the members exactly: those before stay, the occurrence leaves, those after are gone but cancelled ones and extra dates', () => {
    const lines = [...CHOIR_RULE, 'RDATE:20270510T070000Z', 'EXDATE:20270329T070000Z'];
    const start = choir;
    const members = created(start, ruleOf(start, [...CHOIR_RULE, 'RDATE:20270510T070000Z']));
    // 2nd edited on its own, 5th (2027-03-29) cancelled, the RDATE one after the split.
    const stored = members.map((member, index) =>
      index === 1 ? withOverrides(member, ['title']) : index === 3 ? withOverrides(member, [CANCELLED]) : member,
    );
    const at = stored[2]; // 2027-03-22
    const parsed = parseRecurrence(lines, start);
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const plan = planSplit({
      recurrence: parsed.recurrence,
      series: start,
      occurrence: at,
      members: stored,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-22 19:00:00' },
      limits: { horizonUtc: FAR, maxOccurrences: 1000 },
    });
    assert.ok(plan.ok, JSON.stringify(plan));
    assert.deepEqual(plan.before, [
      'RRULE:FREQ=WEEKLY;UNTIL=20270322T075959Z',
      'RDATE:20270510T070000Z',
      'EXDATE:20270329T070000Z',
    ]);
    assert.deepEqual(plan.following, ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE:20270329T170000Z']);
    assert.equal(plan.detached, at.id);
    const placed = [
      plan.detached,
      ...plan.beforeSplit.keep,
      ...plan.beforeSplit.move.map(({ id }) => id),
      ...plan.beforeSplit.delete,
    ];
    assert.equal(new Set(placed).size, placed.length, 'none in two places');
    assert.deepEqual(
      [...placed].sort((a, b) => a - b),
      stored.map((member) => member.id).sort((a, b) => a - b),
      'none lost',
    );
    assert.deepEqual(
      plan.beforeSplit.keep,
      [stored[0].id, stored[1].id, stored[3].id, stored[5].id],
      'before the split, the cancelled one, the RDATE',
    );
    assert.deepEqual(plan.beforeSplit.delete, [stored[4].id]);
    assert.deepEqual([plan.beforeSplit.create, plan.beforeSplit.move, plan.beforeSplit.horizonUtc], [[], [], null]);
  });

  it('answers a series before the split that cannot be materialised as an error, not a plan', () => {
    const parsed = parseRecurrence(CHOIR_RULE, choir);
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const members = created(choir, ruleOf(choir, CHOIR_RULE));
    const plan = planSplit({
      recurrence: parsed.recurrence,
      series: choir,
      occurrence: members[2],
      members,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-22 09:00:00' },
      limits: { horizonUtc: FAR, maxOccurrences: 2 },
    });
    assert.ok(!plan.ok);
    assert.match(plan.message, /\b2\b/, 'it names the maximum');
  });
});

describe('horizons', () => {
  it('are horizonDays from now, or from a later start; a series is due once its horizon is over a day behind', () => {
    assert.equal(materialiseHorizon('2026-11-23 12:00:00', '2026-12-01 18:00:00', 730), '2028-11-30 18:00:00');
    assert.equal(materialiseHorizon('2026-11-23 12:00:00', '2020-01-01 00:00:00', 730), '2028-11-22 12:00:00');
    assert.equal(extensionDue('2026-11-23 12:00:00', 730), '2028-11-21 12:00:00');
  });
});

// ---------------------------------------------------------------------------------------------------------------------

const SEED = Number(process.env.RECURRENCE_SEED ?? 20_260_611);
const ZONES = PROPERTY_ZONES;

interface RuleParts {
  freq: 'DAILY' | 'WEEKLY';
  interval: number;
  count: number;
  byDay: number[] | null;
}

const ruleLine = ({ freq, interval, count, byDay }: RuleParts) =>
  `RRULE:FREQ=${freq};INTERVAL=${interval};COUNT=${count}${byDay === null ? '' : `;BYDAY=${byDay.map((day) => WEEKDAY_CODES[day]).join(',')}`}`;

/** The EXDATE that cancels the occurrence starting at `startUtc` of `series`, as the service writes it. */
const exdateOf = (startUtc: string, series: Series) =>
  series.allDay
    ? `EXDATE;VALUE=DATE:${utcToLocal(startUtc, series.timezone).slice(0, 10).replace(/-/g, '')}`
    : `EXDATE:${startUtc.replace(/[-:]/g, '').replace(' ', 'T')}Z`;

/** A wall-clock value read in `timezone` as event writes normalise it (a time in a gap moves forward). */
const normalised = (local: string, timezone: string) => utcToLocal(localToUtc(local, timezone), timezone);

describe(`series plan properties (seed ${SEED})`, () => {
  it("300 random series with random edits: the members after the plan are the rule's starts, ids kept for surviving starts", () => {
    const next = random(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const seen = { kept: 0, moved: 0, created: 0, deleted: 0, cancelledKept: 0, datesKept: 0 };
    for (let round = 0; round < 300; round++) {
      const allDay = next() < 0.25;
      const timezone = pick(ZONES);
      const day = daysFromCivil(2020, 1, 1) + Math.floor(next() * 365 * 15);
      // Half of the starts near DST changes (00:xx to 03:xx), to land in gaps and repeated hours.
      const hour = next() < 0.5 ? Math.floor(next() * 4) : Math.floor(next() * 24);
      const startFloating = day * 86_400 + (allDay ? 0 : hour * 3600 + pick([0, 15, 30, 45]) * 60);
      const duration = allDay ? Math.floor(next() * 3) * 86_400 + 86_399 : (1 + Math.floor(next() * 12)) * 900;
      const startLocal = normalised(formatFloating(startFloating), timezone);
      const series = seriesOf(timezone, startLocal, formatFloating(parseFloating(startLocal)! + duration), allDay);
      const freq = pick(['DAILY', 'WEEKLY'] as const);
      const parts: RuleParts = {
        freq,
        interval: 1 + Math.floor(next() * 3),
        count: 2 + Math.floor(next() * 30),
        byDay:
          freq === 'WEEKLY' && next() < 0.5
            ? [...new Set([Math.floor(next() * 7), Math.floor(next() * 7)])].sort()
            : null,
      };
      const context = () => JSON.stringify({ round, series, parts });
      const nextId = idSource();
      let members = created(series, ruleOf(series, [ruleLine(parts)]), nextId);

      // Random edits: some members edited on their own (title, or their dates), some cancelled (an EXDATE).
      const exdates: string[] = [];
      members = members.map((member) => {
        const roll = next();
        if (roll < 0.15) return withOverrides(member, ['title']);
        if (roll < 0.3) {
          const shifted = normalised(formatFloating(parseFloating(member.startLocal)! + 3600), timezone);
          return withOverrides(member, ['dates'], { startLocal: shifted, endLocal: shifted });
        }
        if (roll < 0.4) {
          exdates.push(exdateOf(member.occurrenceStartUtc, series));
          return withOverrides(member, [CANCELLED]);
        }
        return member;
      });

      // A random change of the series: its COUNT, interval, weekdays, length, or its start moved to a later occurrence.
      let changed: Series = series;
      const changedParts = { ...parts };
      switch (pick(['count', 'interval', 'byDay', 'length', 'start', 'none'] as const)) {
        case 'count':
          changedParts.count = 1 + Math.floor(next() * 40);
          break;
        case 'interval':
          changedParts.interval = 1 + Math.floor(next() * 3);
          break;
        case 'byDay':
          changedParts.byDay = freq === 'WEEKLY' ? [Math.floor(next() * 7)] : null;
          break;
        case 'length': {
          const length = allDay ? Math.floor(next() * 3) * 86_400 + 86_399 : (1 + Math.floor(next() * 12)) * 900;
          changed = { ...series, endLocal: formatFloating(parseFloating(series.startLocal)! + length) };
          break;
        }
        case 'start': {
          const live = members.filter((member) => !member.overrides.includes(CANCELLED));
          if (live.length === 0) break;
          const target = pick(live);
          const original = utcToLocal(target.occurrenceStartUtc, timezone);
          changed = seriesOf(timezone, original, formatFloating(parseFloating(original)! + duration), allDay);
          break;
        }
        case 'none':
          break;
      }
      const rule = ruleOf(changed, [ruleLine(changedParts), ...exdates]);
      const plan = planSeriesSync(planned(changed), rule, members);
      assertPartition(plan, members);
      const after = apply(plan, members, changed, nextId);

      // The live members are the rule's starts (minus its EXDATEs, which the expansion leaves out) but the series' own.
      const live = after.filter((member) => !member.overrides.includes(CANCELLED));
      const expected = rule.occurrences.filter((times) => times.startUtc !== changed.startUtc);
      const cancelledStarts = new Set(
        after.filter((member) => member.overrides.includes(CANCELLED)).map((member) => member.occurrenceStartUtc),
      );
      assert.deepEqual(
        live.map((member) => member.occurrenceStartUtc).sort(),
        expected
          .map((times) => times.startUtc)
          .filter((start) => !cancelledStarts.has(start))
          .sort(),
        context(),
      );
      // Ids kept for the starts that survive; cancelled members untouched; dates follow the rule unless edited.
      const before = new Map(members.map((member) => [member.occurrenceStartUtc, member]));
      const timesAt = new Map(expected.map((times) => [times.startUtc, times]));
      for (const member of after) {
        const previous = before.get(member.occurrenceStartUtc);
        if (previous !== undefined) {
          assert.equal(member.id, previous.id, context());
          assert.deepEqual(member.overrides, previous.overrides, context());
          seen.kept += 1;
        } else {
          seen.created += 1;
        }
        if (member.overrides.includes(CANCELLED)) {
          assert.deepEqual(member, previous, context());
          seen.cancelledKept += 1;
        } else if (member.overrides.includes('dates')) {
          assert.deepEqual([member.startLocal, member.endLocal], [previous!.startLocal, previous!.endLocal], context());
          seen.datesKept += 1;
        } else {
          const times = timesAt.get(member.occurrenceStartUtc)!;
          assert.deepEqual(
            [member.startLocal, member.endLocal, member.timezone, member.allDay],
            [times.startLocal, times.endLocal, changed.timezone, changed.allDay],
            context(),
          );
        }
      }
      seen.moved += plan.move.length;
      seen.deleted += plan.delete.length;
      for (const id of plan.delete)
        assert.ok(!members.find((member) => member.id === id)!.overrides.includes(CANCELLED), context());

      // Planned again, nothing is left to do.
      const again = planSeriesSync(planned(changed), rule, after);
      assert.deepEqual([again.create, again.move, again.delete], [[], [], []], context());
    }
    if (process.env.RECURRENCE_SEED === undefined)
      assert.ok(
        Object.values(seen).every((count) => count > 0),
        JSON.stringify(seen),
      );
  });

  it('200 random open-ended series extended in random steps hold each start of the rule once', () => {
    const next = random(SEED + 1);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    for (let round = 0; round < 200; round++) {
      const timezone = pick(ZONES);
      const day = daysFromCivil(2020, 1, 1) + Math.floor(next() * 365 * 15);
      const hour = next() < 0.5 ? Math.floor(next() * 4) : Math.floor(next() * 24);
      const startLocal = normalised(formatFloating(day * 86_400 + hour * 3600), timezone);
      const series = seriesOf(timezone, startLocal, formatFloating(parseFloating(startLocal)! + 3600));
      const lines = [`RRULE:FREQ=${pick(['DAILY', 'WEEKLY'])};INTERVAL=${1 + Math.floor(next() * 3)}`];
      const step = () => formatFloating(parseFloating(horizon)! + Math.floor(next() * 40 * 86_400));
      let horizon = formatFloating(parseFloating(series.startUtc)! + Math.floor(next() * 60 * 86_400));
      const nextId = idSource();
      let members = created(series, ruleOf(series, lines, horizon), nextId);
      for (let extension = 0; extension < 4; extension++) {
        const previous = horizon;
        horizon = step();
        const rule = ruleOf(series, lines, horizon);
        const plan = planSeriesSync(planned(series), rule, members);
        assert.ok(
          plan.create.every((times) => times.startUtc > previous),
          lines[0],
        );
        assert.deepEqual([plan.move, plan.delete], [[], []], lines[0]);
        members = apply(plan, members, series, nextId);
        assert.deepEqual(
          members.map((member) => member.occurrenceStartUtc),
          rule.occurrences.map((times) => times.startUtc).filter((start) => start !== series.startUtc),
          JSON.stringify({ round, series, lines, horizon }),
        );
      }
    }
  });
});
