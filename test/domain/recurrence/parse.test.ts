import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeRecurrenceError,
  MAX_RECURRENCE_LINE_LENGTH,
  MAX_RECURRENCE_LINES,
  parseRecurrence,
  RECURRENCE_ERROR_CODE,
  type RecurrenceParse,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';

const timed: SeriesStart = {
  timezone: 'Europe/Berlin',
  allDay: false,
  startLocal: '2026-03-02 09:00:00',
  endLocal: '2026-03-02 10:00:00',
};
const allDay: SeriesStart = {
  timezone: 'America/New_York',
  allDay: true,
  startLocal: '2026-03-02 00:00:00',
  endLocal: '2026-03-02 23:59:59',
};

function refused(result: RecurrenceParse, line: string, message: RegExp): void {
  assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
  if (result.ok) return;
  assert.equal(result.line, line);
  assert.match(result.message, message);
}

function accepted(input: unknown, series: SeriesStart = timed): string[] {
  const result = parseRecurrence(input, series);
  assert.ok(result.ok, JSON.stringify(result));
  assert.ok(result.recurrence !== null);
  return result.recurrence.lines;
}

describe('parseRecurrence accepts', () => {
  it('[] and "" as a single event', () => {
    assert.deepEqual(parseRecurrence([], timed), { ok: true, recurrence: null });
    assert.deepEqual(parseRecurrence('', timed), { ok: true, recurrence: null });
    assert.deepEqual(parseRecurrence('  \n ', timed), { ok: true, recurrence: null });
  });

  it('normalises property, parameter and rule part names and values to upper case, keeping the order', () => {
    assert.deepEqual(
      accepted([
        'rrule:freq=weekly;byday=mo,we;until=20261231t235959z',
        'exdate;tzid=Europe/Berlin:20260304t090000',
        'Rdate;Value=Date-Time:20260307T120000Z',
      ]),
      [
        'RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261231T235959Z',
        'EXDATE;TZID=Europe/Berlin:20260304T090000',
        'RDATE:20260307T120000Z',
      ],
    );
  });

  it('a string of lines, a trailing ";", surrounding spaces and a quoted TZID', () => {
    assert.deepEqual(accepted(' RRULE:FREQ=DAILY;COUNT=3;\r\nEXDATE;TZID="America/New_York":20260303T030000 '), [
      'RRULE:FREQ=DAILY;COUNT=3',
      'EXDATE;TZID=America/New_York:20260303T030000',
    ]);
  });

  it("TZIDs in the service's other zone forms", () => {
    assert.deepEqual(
      accepted(['RDATE;TZID=EST:20260310T030000', 'RDATE;TZID=+05:30:20260311T123000'.replace('+05:30', 'UTC+5.5')]),
      ['RDATE;TZID=EST:20260310T030000', 'RDATE;TZID=UTC+5.5:20260311T123000'],
    );
  });

  it('dates for an all-day series, with or without VALUE=DATE; UNTIL as a date', () => {
    assert.deepEqual(
      accepted(['RRULE:FREQ=WEEKLY;UNTIL=20260601', 'EXDATE:20260309,20260316', 'RDATE;VALUE=DATE:20260318'], allDay),
      ['RRULE:FREQ=WEEKLY;UNTIL=20260601', 'EXDATE;VALUE=DATE:20260309,20260316', 'RDATE;VALUE=DATE:20260318'],
    );
  });

  it('a date-only EXDATE on a timed series, and RDATE/EXDATE without any RRULE', () => {
    assert.deepEqual(accepted(['EXDATE;VALUE=DATE:20260302', 'RDATE:20260305T090000']), [
      'EXDATE;VALUE=DATE:20260302',
      'RDATE:20260305T090000',
    ]);
  });

  it('UNTIL equal to DTSTART, in each form', () => {
    accepted(['RRULE:FREQ=DAILY;UNTIL=20260302T090000']);
    accepted(['RRULE:FREQ=DAILY;UNTIL=20260302T080000Z']);
    accepted(['RRULE:FREQ=DAILY;UNTIL=20260302']);
  });

  it('exactly the limits: 100 lines, 1000 characters', () => {
    accepted(
      Array.from(
        { length: MAX_RECURRENCE_LINES },
        (_, i) => `RDATE:2027${String((i % 12) + 1).padStart(2, '0')}01T0900${String(i % 60).padStart(2, '0')}`,
      ),
    );
    const values = Array.from({ length: 200 }, () => '20270101T090000').join(',');
    const line = `RDATE:${values}`.slice(0, MAX_RECURRENCE_LINE_LENGTH);
    accepted([line.slice(0, line.lastIndexOf(','))]);
  });

  it('its own normalised lines unchanged (stored lines are parsed again)', () => {
    const inputs: string[][] = [
      ['rrule:freq=monthly;byday=1mo,-1fr;wkst=su;until=20271231', 'exdate;value=date-time:20260309t090000z'],
      ['RDATE;TZID="+05:30":20260310T120000,20260311T120000', 'EXDATE;TZID="America/New_York":20260304T030000'],
      ['Rrule:Freq=Hourly;Interval=5;ByHour=9,14;Count=9;', 'EXDATE;VALUE=DATE:20260303'],
    ];
    for (const input of inputs) {
      const once = accepted(input);
      assert.deepEqual(accepted(once), once);
    }
    assert.deepEqual(accepted(['RDATE;TZID="+05:30":20260310T120000']), ['RDATE;TZID="+05:30":20260310T120000']);
  });

  it('the parsed rule', () => {
    const result = parseRecurrence(
      ['RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=1MO,-1FR,TU;BYMONTHDAY=-1,1,1;WKST=SU;COUNT=5'],
      timed,
    );
    assert.ok(result.ok && result.recurrence);
    assert.deepEqual(result.recurrence.rules[0], {
      freq: 'MONTHLY',
      interval: 2,
      count: 5,
      until: null,
      bySecond: null,
      byMinute: null,
      byHour: null,
      byDay: [
        { weekday: 0, n: 1 },
        { weekday: 4, n: -1 },
        { weekday: 1, n: 0 },
      ],
      byMonthDay: [-1, 1],
      byYearDay: null,
      byWeekNo: null,
      byMonth: null,
      bySetPos: null,
      wkst: 6,
    });
  });
});

describe('parseRecurrence refuses', () => {
  it('input that is neither an array nor a string', () => {
    for (const input of [42, null, true, { rrule: 'FREQ=DAILY' }, undefined]) {
      const result = parseRecurrence(input, timed);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, /must be an array/);
    }
  });

  it('an array with a non-string line', () => {
    refused(parseRecurrence(['RRULE:FREQ=DAILY', 7], timed), '7', /line 2 is not a string/);
  });

  it('more than 100 lines', () => {
    const lines = Array.from({ length: MAX_RECURRENCE_LINES + 1 }, () => 'RDATE:20270101T090000');
    refused(parseRecurrence(lines, timed), 'RDATE:20270101T090000', /101 lines; at most 100/);
  });

  it('a line over 1000 characters', () => {
    const line = `RDATE:${Array.from({ length: 80 }, () => '20270101T090000').join(',')}`;
    const result = parseRecurrence([line], timed);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /characters long; at most 1000/);
  });

  const cases: Array<[string, RegExp, SeriesStart?]> = [
    ['', /empty line/],
    ['FREQ=DAILY', /not an RFC 5545 line/],
    ['hello world', /not an RFC 5545 line/],
    ['DTSTART:20260302T090000', /unknown property DTSTART/],
    ['X-FOO:bar', /unknown property X-FOO/],
    ['EXRULE:FREQ=DAILY', /EXRULE is not supported/],
    ['RRULE;X=1:FREQ=DAILY', /RRULE takes no parameters/],
    ['RRULE:COUNT=3', /FREQ is required/],
    ['RRULE:FREQ=SECONDLY', /FREQ=SECONDLY is not supported/],
    ['RRULE:FREQ=minutely;COUNT=3', /FREQ=MINUTELY is not supported/],
    ['RRULE:FREQ=FORTNIGHTLY', /not a frequency/],
    ['RRULE:FREQ=DAILY;FOO=1', /unknown rule part FOO/],
    ['RRULE:FREQ=DAILY;BYEASTER=0', /unknown rule part BYEASTER/],
    ['RRULE:FREQ=DAILY;COUNT=3;COUNT=4', /COUNT is given twice/],
    ['RRULE:FREQ=DAILY;;COUNT=3', /empty part/],
    ['RRULE:FREQ=DAILY;COUNT', /not a NAME=VALUE/],
    ['RRULE:FREQ=DAILY;INTERVAL=0', /INTERVAL=0 is not a positive whole number/],
    ['RRULE:FREQ=DAILY;COUNT=-1', /COUNT=-1 is not a positive whole number/],
    ['RRULE:FREQ=DAILY;COUNT=ten', /COUNT=TEN is not a positive whole number/],
    ['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20261231T000000Z', /COUNT and UNTIL cannot be used together/],
    ['RRULE:FREQ=DAILY;UNTIL=20260230T000000Z', /UNTIL: "20260230T000000Z" is not a valid date/],
    ['RRULE:FREQ=DAILY;UNTIL=2026-12-31', /UNTIL: .* is not a date/],
    ['RRULE:FREQ=DAILY;UNTIL=20261231T250000', /not a valid time/],
    ['RRULE:FREQ=DAILY;UNTIL=20260302T085959', /UNTIL is before the event's start/],
    ['RRULE:FREQ=DAILY;UNTIL=20260302T075959Z', /UNTIL is before the event's start/],
    ['RRULE:FREQ=DAILY;UNTIL=20260301', /UNTIL is before the event's start/],
    ['RRULE:FREQ=YEARLY;BYMONTH=13', /BYMONTH=13: "13" is not a valid value \(1 to 12\)/],
    ['RRULE:FREQ=YEARLY;BYMONTH=-1', /BYMONTH=-1/],
    ['RRULE:FREQ=MONTHLY;BYMONTHDAY=0', /BYMONTHDAY=0/],
    ['RRULE:FREQ=MONTHLY;BYMONTHDAY=32', /BYMONTHDAY=32/],
    ['RRULE:FREQ=MONTHLY;BYMONTHDAY=-32', /BYMONTHDAY=-32/],
    ['RRULE:FREQ=MONTHLY;BYMONTHDAY=1,,2', /BYMONTHDAY=1,,2/],
    ['RRULE:FREQ=DAILY;BYHOUR=24', /BYHOUR=24/],
    ['RRULE:FREQ=DAILY;BYMINUTE=60', /BYMINUTE=60/],
    ['RRULE:FREQ=DAILY;BYSECOND=60', /BYSECOND=60/],
    ['RRULE:FREQ=YEARLY;BYYEARDAY=367', /BYYEARDAY=367/],
    ['RRULE:FREQ=YEARLY;BYWEEKNO=54', /BYWEEKNO=54/],
    ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0', /BYSETPOS=0/],
    ['RRULE:FREQ=WEEKLY;BYDAY=XX', /"XX" is not a weekday/],
    ['RRULE:FREQ=MONTHLY;BYDAY=0MO', /"0MO" is not a weekday/],
    ['RRULE:FREQ=YEARLY;BYDAY=54MO', /"54MO" is not a weekday/],
    ['RRULE:FREQ=WEEKLY;WKST=XX', /WKST=XX is not a weekday/],
    ['RRULE:FREQ=MONTHLY;BYWEEKNO=1', /BYWEEKNO is only valid with FREQ=YEARLY/],
    ['RRULE:FREQ=DAILY;BYYEARDAY=1', /BYYEARDAY is not valid with FREQ=DAILY/],
    ['RRULE:FREQ=WEEKLY;BYMONTHDAY=1', /BYMONTHDAY is not valid with FREQ=WEEKLY/],
    ['RRULE:FREQ=WEEKLY;BYDAY=1MO', /only valid with FREQ=MONTHLY or YEARLY, not WEEKLY/],
    ['RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO', /cannot be used together with BYWEEKNO/],
    ['RRULE:FREQ=MONTHLY;BYDAY=6MO', /BYDAY ordinal 6 is beyond 5/],
    ['RRULE:FREQ=YEARLY;BYMONTH=1;BYDAY=-6MO', /BYDAY ordinal -6 is beyond 5/],
    ['RRULE:FREQ=MONTHLY;BYSETPOS=1', /BYSETPOS needs another BYxxx/],
    ['RRULE:FREQ=HOURLY;INTERVAL=2;BYHOUR=10,12', /BYHOUR never matches/],
    ['RRULE:FREQ=HOURLY', /cannot repeat HOURLY/, allDay],
    ['RRULE:FREQ=DAILY;BYHOUR=9', /BYHOUR, BYMINUTE and BYSECOND do not apply/, allDay],
    ['EXDATE;TZID=Mars/Olympus:20260303T090000', /unknown time zone TZID=Mars\/Olympus/],
    ['EXDATE;TZID=:20260303T090000', /unknown time zone/],
    ['RDATE;VALUE=PERIOD:20260303T090000Z/PT1H', /VALUE=PERIOD is not supported/],
    ['RDATE;VALUE=TEXT:20260303T090000', /VALUE=TEXT is not DATE or DATE-TIME/],
    ['RDATE;X-FOO=1:20260303T090000', /unknown parameter X-FOO/],
    ['RDATE;TZID=UTC;TZID=UTC:20260303T090000', /TZID is given twice/],
    ['RDATE:', /RDATE has no value/],
    ['EXDATE:20260230T090000', /"20260230T090000" is not a valid date/],
    ['EXDATE:20260231', /"20260231" is not a valid date/],
    ['EXDATE:2026-03-03 09:00:00', /is not a date \(YYYYMMDD\)/],
    ['EXDATE:20260303T090000,', /"" is not a date/],
    ['EXDATE:20260303T090000,20260304', /cannot be mixed/],
    ['EXDATE;VALUE=DATE:20260303T090000', /VALUE=DATE takes dates/],
    ['EXDATE;VALUE=DATE-TIME:20260303', /VALUE=DATE-TIME takes date-times/],
    ['EXDATE;TZID=Europe/Berlin:20260303', /TZID does not apply to dates/],
    ['EXDATE;TZID=Europe/Berlin:20260303T090000Z', /cannot have a TZID/],
    ['RDATE:20260303', /a timed event takes date-times for RDATE/],
    ['EXDATE:20260303T000000', /an all-day event takes dates/, allDay],
    ['RDATE;TZID=America/New_York:20260303T000000', /an all-day event takes dates/, allDay],
  ];
  for (const [line, message, series] of cases) {
    it(`${JSON.stringify(line)}${series === allDay ? ' (all-day series)' : ''}`, () => {
      refused(parseRecurrence(['RRULE:FREQ=WEEKLY;COUNT=3', line], series ?? timed), line, message);
    });
  }
});

describe('describeRecurrenceError', () => {
  it('names the line for API users', () => {
    const result = parseRecurrence(['RRULE:FREQ=SECONDLY'], timed);
    assert.ok(!result.ok);
    assert.equal(
      describeRecurrenceError(result),
      'Invalid recurrence line "RRULE:FREQ=SECONDLY": FREQ=SECONDLY is not supported: the shortest frequency is HOURLY.',
    );
    assert.equal(RECURRENCE_ERROR_CODE, 'rest_invalid_recurrence');
  });

  it('passes an expansion error through', () => {
    assert.equal(describeRecurrenceError({ ok: false, reason: 'too_many', message: 'Too many.' }), 'Too many.');
  });
});
