// D21 for categories and tags: every committed create, update and delete appends to the change log in its own
// transaction, together with the other items whose representation the write changed; failed writes append nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { latestSeq, readChanges } from '../../src/core/change-log/read.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { DomainError, InvalidFields } from '../../src/domain/errors.ts';
import { toApiError, type ApiError } from '../../src/http/errors.ts';
import { createTerm, removeTerm, updateTerm } from '../../src/core/terms/service.ts';
import { TAXONOMIES } from '../../src/core/terms/taxonomies.ts';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { createEvent } from './events-support.ts';

interface Row {
  type: string;
  id: number;
  action: string;
}

const byTypeThenId = (a: Row, b: Row) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id - b.id);

describeEachDatabase('change log of categories and tags', (harness) => {
  const h = () => harness();
  let counter = 0;
  const unique = (prefix: string) => `${prefix} ${++counter}`;

  /** What `write` appended to the log, sorted by type and id (the order inside one transaction is not asserted). */
  const appendedBy = async (write: () => Promise<unknown>): Promise<Row[]> => {
    const afterSeq = await latestSeq(h().store.db);
    await write();
    const rows = await readChanges(h().store.db, { afterSeq, limit: 1000 });
    return rows.map(({ type, id, action }) => ({ type, id, action })).sort(byTypeThenId);
  };

  const call = async (
    method: string,
    path: string,
    status: number,
    body?: Record<string, unknown>,
    as = h().users.editor,
  ) => {
    const response = await h().request(method, path, { as, body });
    assert.equal(response.statusCode, status, response.body);
    return response.json();
  };

  for (const [collection, type] of [
    ['categories', 'category'],
    ['tags', 'tag'],
  ] as const) {
    it(`logs a ${type}'s create, update and delete, one row each`, async () => {
      let id = 0;
      assert.deepEqual(
        await appendedBy(async () => {
          id = (await call('POST', `/${collection}`, 201, { name: unique(`Logged ${type}`) })).id;
        }),
        [{ type, id, action: 'created' }],
      );
      assert.deepEqual(await appendedBy(() => call('PATCH', `/${collection}/${id}`, 200, { description: 'Changed' })), [
        { type, id, action: 'updated' },
      ]);
      assert.deepEqual(
        await appendedBy(() =>
          call('POST', `/${collection}/${id}`, 200, {
            name: unique(`Renamed ${type}`),
            slug: unique(`renamed-${type}`),
          }),
        ),
        [{ type, id, action: 'updated' }],
      );
      assert.deepEqual(await appendedBy(() => call('DELETE', `/${collection}/${id}`, 200)), [
        { type, id, action: 'deleted' },
      ]);
    });

    it(`appends nothing when a ${type} write fails`, async () => {
      const name = unique(`Taken ${type}`);
      const first = await call('POST', `/${collection}`, 201, { name });
      const second = await call('POST', `/${collection}`, 201, { name: unique(`Other ${type}`) });
      assert.deepEqual(
        await appendedBy(async () => {
          assert.equal((await call('POST', `/${collection}`, 400, { name })).code, 'term_exists');
          assert.equal(
            (await call('PATCH', `/${collection}/${second.id}`, 400, { slug: first.slug })).code,
            'duplicate_term_slug',
          );
          assert.equal(
            (await call('PATCH', `/${collection}/${second.id}`, 400, { name: first.name })).code,
            'term_exists',
          );
          assert.equal(
            (await call('PATCH', `/${collection}/${second.id}`, 400, { name: '<b></b>' })).code,
            'empty_term_name',
          );
          await call('POST', `/${collection}`, 403, { name: unique('Not allowed') }, h().users.subscriber);
          await call('DELETE', `/${collection}/${first.id}`, 403, undefined, h().users.subscriber);
        }),
        [],
      );
    });
  }

  it('logs the descendants whose public URL or parent a category write changes, and the events that embed it', async () => {
    const top = await call('POST', '/categories', 201, { name: unique('Top') });
    const child = await call('POST', '/categories', 201, { name: unique('Child'), parent: top.id });
    const grandchild = await call('POST', '/categories', 201, { name: unique('Grandchild'), parent: child.id });
    const aside = await call('POST', '/categories', 201, { name: unique('Aside') });
    const tag = await call('POST', '/tags', 201, { name: unique('Embedded tag') });
    const carrier = await call('POST', '/events', 201, {
      title: 'Carries the child',
      start_date: '2027-03-10 09:00:00',
      end_date: '2027-03-10 11:00:00',
      categories: [child.id],
      tags: [tag.id],
    });
    const other = await call('POST', '/events', 201, {
      title: 'Carries the top',
      start_date: '2027-03-11 09:00:00',
      end_date: '2027-03-11 11:00:00',
      categories: [top.id],
    });

    // A new slug changes the public URL of every descendant (it holds their ancestors' slugs) and the embedded form.
    assert.deepEqual(
      await appendedBy(() => call('PATCH', `/categories/${top.id}`, 200, { slug: unique('new-top') })),
      [
        { type: 'category', id: top.id, action: 'updated' },
        { type: 'category', id: child.id, action: 'updated' },
        { type: 'category', id: grandchild.id, action: 'updated' },
        { type: 'event', id: other.id, action: 'updated' },
      ].sort(byTypeThenId),
    );
    // A description changes the term and the events that embed it, not its descendants.
    assert.deepEqual(
      await appendedBy(() => call('PATCH', `/categories/${child.id}`, 200, { description: 'New words' })),
      [
        { type: 'category', id: child.id, action: 'updated' },
        { type: 'event', id: carrier.id, action: 'updated' },
      ],
    );
    // A move changes the moved category, its descendants and the events that embed it.
    assert.deepEqual(await appendedBy(() => call('PATCH', `/categories/${child.id}`, 200, { parent: aside.id })), [
      { type: 'category', id: child.id, action: 'updated' },
      { type: 'category', id: grandchild.id, action: 'updated' },
      { type: 'event', id: carrier.id, action: 'updated' },
    ]);
    // A delete moves the children up (new parent, new URL, also for the events that embed them) and leaves the events.
    assert.deepEqual(
      await appendedBy(() => call('DELETE', `/categories/${aside.id}`, 200)),
      [
        { type: 'category', id: aside.id, action: 'deleted' },
        { type: 'category', id: child.id, action: 'updated' },
        { type: 'category', id: grandchild.id, action: 'updated' },
        { type: 'event', id: carrier.id, action: 'updated' },
      ].sort(byTypeThenId),
    );
    assert.deepEqual(await appendedBy(() => call('DELETE', `/tags/${tag.id}`, 200)), [
      { type: 'event', id: carrier.id, action: 'updated' },
      { type: 'tag', id: tag.id, action: 'deleted' },
    ]);
  });

  for (const write of ['deleted', 'renamed', 'left by its parent'] as const)
    it(`logs an event linked to a term while the term is being ${write}: a syncing client is sent the event again`, async () => {
      // The term linked: a tag, or a category whose parent is deleted (the category's embedded parent changes).
      const parent =
        write === 'left by its parent' ? (await call('POST', '/categories', 201, { name: unique('Parent') })).id : 0;
      const term =
        write === 'left by its parent'
          ? (await call('POST', '/categories', 201, { name: unique('Contested child'), parent })).id
          : (await call('POST', '/tags', 201, { name: unique('Contested tag') })).id;
      const event = await createEvent(h(), {
        title: unique('Contested event'),
        start_date: '2035-01-10 10:00:00',
        end_date: '2035-01-10 11:00:00',
      });
      // Another process links the term to the event and holds its transaction open while the term is written.
      const other = await h().openAnotherStore();
      let linked!: () => void;
      const linkedNow = new Promise<void>((resolve) => {
        linked = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const linking = other.transaction(async (trx) => {
        await trx.insertInto('event_terms').values({ event_id: event.id, term_id: term }).execute();
        linked();
        await released;
      });
      try {
        await linkedNow;
        const afterSeq = await latestSeq(h().store.db);
        let removed = false;
        const removal = (
          write === 'deleted'
            ? h().request('DELETE', `/tags/${term}`, { as: h().users.editor, query: { force: 'true' } })
            : write === 'renamed'
              ? h().request('POST', `/tags/${term}`, { as: h().users.editor, body: { name: 'Contested, renamed' } })
              : h().request('DELETE', `/categories/${parent}`, { as: h().users.editor, query: { force: 'true' } })
        ).finally(() => {
          removed = true;
        });
        // The write must have started and be waiting for the linking transaction: on PostgreSQL for a row lock, on
        // SQLite for the write lock.
        if (h().database === 'postgres') {
          for (let waited = 0; ; waited++) {
            const { rows } = await sql<{ waiting: number | string }>`
            select count(*) as waiting from pg_locks where not granted`.execute(h().store.db);
            if (Number(rows[0].waiting) > 0) break;
            assert.ok(waited < 500, 'the write waits for the linking transaction');
            await sleep(10);
          }
        } else {
          await sleep(200);
        }
        assert.equal(removed, false, 'the write waited for the linking transaction');
        release();
        await linking;
        const answer = await removal;
        assert.equal(answer.statusCode, 200, answer.body);
        const rows = await readChanges(h().store.db, { afterSeq, limit: 100 });
        assert.ok(
          rows.some((row) => row.type === 'event' && row.id === event.id && row.action === 'updated'),
          `the event that carried the term is logged: ${JSON.stringify(rows)}`,
        );
        if (write === 'deleted') {
          // (The link was written around the event's owners, so only a removal, which renders the event again, shows.)
          const read = await h().request('GET', `/events/${event.id}`, { as: h().users.editor });
          assert.deepEqual(read.json().tags, []);
        }
      } finally {
        release();
        await linking.catch(() => {});
        await other.close();
      }
    });

  it('logs the terms an event write creates by name as created, and no term whose count alone changed', async () => {
    const existing = await call('POST', '/categories', 201, { name: unique('Existing') });
    const categoryName = unique('Made by an event');
    const tagName = unique('tag made by an event');
    /** An event from 09:00 to 11:00 on `day` with these terms (ids, or names to create). */
    const eventWith = (title: string, day: string, categories: unknown[], tags: unknown[]) => ({
      title,
      start_date: `${day} 09:00:00`,
      end_date: `${day} 11:00:00`,
      categories,
      tags,
    });
    let event = 0;
    const rows = await appendedBy(async () => {
      event = (
        await call(
          'POST',
          '/events',
          201,
          eventWith('Makes terms', '2027-04-10', [existing.id, categoryName], [tagName]),
        )
      ).id;
    });
    const made = await h()
      .store.db.selectFrom('terms')
      .select(['id', 'taxonomy'])
      .where('name', 'in', [categoryName, tagName])
      .execute();
    const category = made.find((term) => term.taxonomy === 'event_category')!.id;
    const tag = made.find((term) => term.taxonomy === 'event_tag')!.id;
    assert.deepEqual(rows, [
      { type: 'category', id: category, action: 'created' },
      { type: 'event', id: event, action: 'created' },
      { type: 'tag', id: tag, action: 'created' },
    ]);

    // Another published event with the same terms changes their counts only.
    assert.deepEqual(
      await appendedBy(async () => {
        event = (
          await call('POST', '/events', 201, eventWith('Reuses terms', '2027-04-11', [existing.id, category], [tag]))
        ).id;
      }),
      [{ type: 'event', id: event, action: 'created' }],
    );

    // An event write refused because of a term (an author may not create tags, D16) leaves neither term nor row.
    // The category (authors may make those) was made first, then rolled back with the rest.
    const names = [unique('Would be made'), unique('refused tag')];
    assert.deepEqual(
      await appendedBy(async () => {
        const refused = await call(
          'POST',
          '/events',
          400,
          eventWith('Refused', '2027-04-12', [names[0]], [names[1]]),
          h().users.author,
        );
        assert.equal(refused.code, 'rest_invalid_param');
      }),
      [],
    );
    assert.deepEqual(await h().store.db.selectFrom('terms').select('id').where('name', 'in', names).execute(), []);
  });
});

describeEachDatabase('terms core without a request', (harness) => {
  const h = () => harness();
  const actorOf = (user: Credentials | null): Actor => ({
    viewer: user && { id: user.id, role: user.role },
    now: DateTime.fromISO('2026-06-01T12:00:00Z', { zone: 'utc' }),
    config: h().config,
  });
  const categories = TAXONOMIES.event_category;
  const tags = TAXONOMIES.event_tag;

  it('creates, updates and deletes with a plain actor, each in its own logged transaction', async () => {
    const editor = actorOf(h().users.editor);
    const afterSeq = await latestSeq(h().store.db);
    const row = await createTerm(h().store, editor, categories, { name: 'Core made', description: '<b>bold</b>' });
    assert.equal(row.slug, 'core-made');
    const renamed = await updateTerm(h().store, editor, categories, row.id, { name: 'Core renamed' });
    assert.equal(renamed.name, 'Core renamed');
    assert.deepEqual(await removeTerm(h().store, editor, categories, row.id), renamed);
    const logged = await readChanges(h().store.db, { afterSeq, limit: 10 });
    assert.deepEqual(
      logged.map(({ type, id, action }) => ({ type, id, action })),
      [
        { type: 'category', id: row.id, action: 'created' },
        { type: 'category', id: row.id, action: 'updated' },
        { type: 'category', id: row.id, action: 'deleted' },
      ],
    );
    assert.ok(logged[0].seq < logged[1].seq && logged[1].seq < logged[2].seq);
  });

  it('throws domain errors, which the edge maps to the contract answers', async () => {
    const editor = actorOf(h().users.editor);
    const existing = await createTerm(h().store, editor, tags, { name: 'Core tag' });
    const afterSeq = await latestSeq(h().store.db);

    const clash = await createTerm(h().store, editor, tags, { name: 'CORE TAG' }).catch((error: unknown) => error);
    assert.ok(clash instanceof DomainError);
    assert.deepEqual(
      [clash.kind, clash.code, clash.data, clash.extra],
      ['invalid', 'term_exists', { term_id: existing.id }, { additional_data: [existing.id, existing.id] }],
    );
    const answer = toApiError(clash, true) as ApiError;
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.toBody(), {
      code: 'term_exists',
      message: 'A term with the name provided already exists in this taxonomy.',
      data: { status: 400, term_id: existing.id },
      additional_data: [existing.id, existing.id],
    });

    const forbidden = await createTerm(h().store, actorOf(h().users.author), tags, { name: 'Not for authors' }).catch(
      (error: unknown) => error,
    );
    assert.ok(forbidden instanceof DomainError);
    assert.equal(forbidden.kind, 'forbidden');
    assert.equal((toApiError(forbidden, false) as ApiError).status, 401);
    assert.equal((toApiError(forbidden, true) as ApiError).status, 403);

    const flat = await updateTerm(h().store, editor, tags, existing.id, { parent: 0 }).catch((error: unknown) => error);
    assert.ok(flat instanceof DomainError);
    assert.equal(flat.code, 'rest_taxonomy_not_hierarchical');

    const gone = await removeTerm(h().store, editor, categories, existing.id).catch((error: unknown) => error);
    assert.ok(gone instanceof InvalidFields);
    assert.deepEqual(Object.keys(gone.fields), ['id']);
    assert.deepEqual(await readChanges(h().store.db, { afterSeq, limit: 10 }), []);
  });
});
