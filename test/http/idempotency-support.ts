// What the two D23 suites share: the five create routes, fresh keys and names, and counting what was created.
import { randomBytes } from 'node:crypto';
import type { Harness } from '../helpers/harness.ts';

export interface Kind {
  collection: 'events' | 'venues' | 'organizers' | 'categories' | 'tags';
  body(name: string): Record<string, unknown>;
}

export const KINDS: readonly Kind[] = [
  {
    collection: 'events',
    body: (name) => ({
      title: name,
      start_date: '2030-05-10 10:00:00',
      end_date: '2030-05-10 12:00:00',
      status: 'publish',
    }),
  },
  { collection: 'venues', body: (name) => ({ venue: name, city: 'Springfield', status: 'publish' }) },
  { collection: 'organizers', body: (name) => ({ organizer: name, email: 'someone@example.com', status: 'publish' }) },
  { collection: 'categories', body: (name) => ({ name, description: 'Described' }) },
  { collection: 'tags', body: (name) => ({ name }) },
];

export const newKey = () => `key-${randomBytes(8).toString('hex')}`;
export const newName = (label: string) => `${label} ${randomBytes(4).toString('hex')}`;

/** How many items of `kind` carry `name` (posts by title, terms by name). */
export async function itemsNamed(h: Harness, kind: Kind, name: string): Promise<number> {
  const db = h.store.db;
  const rows =
    kind.collection === 'categories' || kind.collection === 'tags'
      ? await db.selectFrom('terms').select('id').where('name', '=', name).execute()
      : await db.selectFrom('posts').select('id').where('title', '=', name).execute();
  return rows.length;
}
