// A generated iCalendar file for measuring the .ics import: `count` VEVENTs as calendar programs export them, a
// seeded mix of what the import handles (zoned, UTC and all-day times, venues and organizers named again and again,
// categories, a weekly series now and then, HTML descriptions). `node bench/ics.ts <file> [count]` writes one.
import { writeFileSync } from 'node:fs';
import { seededRandom } from './random.ts';

const WORDS = ['jazz', 'market', 'lecture', 'choir', 'workshop', 'cinema', 'tango', 'reading', 'yoga', 'chess'];
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'W. Europe Standard Time'];
const VENUES = 200;
const ORGANIZERS = 100;
const CATEGORIES = 20;

const pad = (value: number) => String(value).padStart(2, '0');

const dateOf = (day: Date) => `${day.getUTCFullYear()}${pad(day.getUTCMonth() + 1)}${pad(day.getUTCDate())}`;

/** RFC 5545 §3.1: lines of at most 75 octets (the generated text is ASCII), continued with a space. */
function fold(line: string): string {
  if (line.length <= 75) return line;
  const parts = [line.slice(0, 75)];
  for (let offset = 75; offset < line.length; offset += 74) parts.push(` ${line.slice(offset, offset + 74)}`);
  return parts.join('\r\n');
}

/** The iCalendar text of `count` events, the same for the same `count` and `seed`. */
export function generateIcs(count: number, seed = 20_000): string {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar-events//bench import//EN',
    'X-WR-TIMEZONE:Europe/Berlin',
  ];
  const base = Date.UTC(2027, 0, 1);
  for (let index = 0; index < count; index++) {
    const day = new Date(base + between(0, 730) * 86_400_000);
    const date = dateOf(day);
    const hour = between(7, 20);
    const word = pick(WORDS);
    lines.push('BEGIN:VEVENT', `UID:bench-import-${index}@example.org`, 'DTSTAMP:20260101T000000Z');
    lines.push(`SUMMARY:${word[0].toUpperCase()}${word.slice(1)} evening ${index}`);
    const kind = next();
    if (kind < 0.1) {
      lines.push(`DTSTART;VALUE=DATE:${date}`, `DTEND;VALUE=DATE:${dateOf(new Date(day.getTime() + 86_400_000))}`);
    } else if (kind < 0.3) {
      lines.push(`DTSTART:${date}T${pad(hour)}0000Z`, `DURATION:PT${between(1, 3)}H`);
    } else {
      const zone = pick(ZONES);
      lines.push(`DTSTART;TZID=${zone}:${date}T${pad(hour)}3000`, `DTEND;TZID=${zone}:${date}T${pad(hour + 2)}0000`);
    }
    if (next() < 0.5) lines.push(`DESCRIPTION:A ${word} for everyone\\, with ${pick(WORDS)} and ${pick(WORDS)}.`);
    else lines.push(`X-ALT-DESC;FMTTYPE=text/html:<p>A <b>${word}</b> for everyone.</p>`);
    if (next() < 0.8) lines.push(`LOCATION:${pick(['Hall', 'Club', 'Park', 'Library'])} ${between(1, VENUES)}`);
    if (next() < 0.6) {
      const organizer = between(1, ORGANIZERS);
      lines.push(`ORGANIZER;CN=Organizer ${organizer}:mailto:organizer${organizer}@example.org`);
    }
    lines.push(
      `CATEGORIES:Category ${between(1, CATEGORIES)}${next() < 0.3 ? `,Category ${between(1, CATEGORIES)}` : ''}`,
    );
    if (next() < 0.05) lines.push('CLASS:PRIVATE');
    if (next() < 0.01) lines.push(`RRULE:FREQ=WEEKLY;COUNT=${between(2, 8)}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

if (import.meta.main) {
  const [file, count = '20000'] = process.argv.slice(2);
  if (!file || !/^\d+$/.test(count)) {
    console.error('node bench/ics.ts <file.ics> [events, default 20000]');
    process.exit(2);
  }
  writeFileSync(file, generateIcs(Number(count)));
}
