// The start-up passes over every post (D34's stored documents, the occurrence counts of events not counted yet) check
// the posts in short ranges of their key, a statement each, and the documents' pass checks everything only the first
// time a fingerprint runs on a database (or when the change log no longer reaches back to its last pass): after that,
// only the posts changed since. Core tests: the passes are called as the service's start calls them, without HTTP
// except to make the data.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { RENDERED_SETTING, renderStaleDocuments } from '../../src/core/background/documents.ts';
import { countUncountedEvents } from '../../src/core/background/occurrence-counts.ts';
import { readSetting } from '../../src/core/settings/store.ts';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { queryPlan, rowCount, statementsWithParameters } from '../helpers/queries.ts';
import { createEvent } from '../resources/events-support.ts';
import { createLinked } from '../resources/support.ts';

const fingerprintOf = async (h: Harness, id: number) =>
  (await h.store.db.selectFrom('event_documents').select('fingerprint').where('event_id', '=', id).executeTakeFirst())
    ?.fingerprint;

/** Marks events' documents as rendered under another configuration, as a direct edit of the database (no change logged). */
const makeStale = (h: Harness, ids: number[]) =>
  h.store.transaction(async (trx) => {
    await sql`update event_documents set fingerprint = 'other' where event_id in (${sql.join(ids)})`.execute(trx);
  });

/** The same configuration with another site address: another fingerprint. */
const otherSite = (h: Harness) =>
  loadConfig({ ...h.serviceEnv(), LOG_LEVEL: 'silent', SITE_URL: 'https://elsewhere.example' });

/** The statements of `run` that check a range of ids (two parameters bounding `id`), with their bounds. */
function rangeChecks(statements: CompiledQuery[], table: 'posts' | 'events') {
  return statements
    .filter((query) => new RegExp(`"${table}"\\."id" > .*"${table}"\\."id" <= `).test(query.sql))
    .map((query) => {
      const values = query.parameters.filter((value) => typeof value === 'number') as number[];
      return { query, after: values.at(-2)!, through: values.at(-1)! };
    });
}

describeEachDatabase('Start-up passes over every post', (h) => {
  it('checks only the posts changed since its last complete pass', async () => {
    const [a, b] = [await createEvent(h()), await createEvent(h())];
    const first = await renderStaleDocuments(h().store, h().config);
    assert.equal(first.checked, 'all', 'no pass of this fingerprint yet: everything is checked');
    assert.match((await readSetting(h().store.db, RENDERED_SETTING)) ?? '', /@\d+$/);

    // A logged change to a, then both documents made stale behind the log's back: only a is checked, and rendered.
    const edited = await h().request('POST', `/events/${a.id}`, { as: h().users.editor, body: { title: 'Edited' } });
    assert.equal(edited.statusCode, 200, edited.body);
    await makeStale(h(), [a.id, b.id]);
    const next = await renderStaleDocuments(h().store, h().config);
    assert.deepEqual([next.checked, next.events], ['changed', 1]);
    assert.notEqual(await fingerprintOf(h(), a.id), 'other');
    assert.equal(await fingerprintOf(h(), b.id), 'other', 'an unchanged post is not checked again');

    const idle = await statementsWithParameters(h().store, () => renderStaleDocuments(h().store, h().config));
    assert.ok(
      !idle.some((query) => /"posts"/.test(query.sql)),
      `nothing changed: no post is read\n${idle.map((q) => q.sql).join('\n')}`,
    );
    // Under another fingerprint everything is checked (and rendered) again, then again under this one.
    const elsewhere = await renderStaleDocuments(h().store, otherSite(h()));
    assert.equal(elsewhere.checked, 'all');
    assert.ok(elsewhere.events >= 2, JSON.stringify(elsewhere));
    const back = await renderStaleDocuments(h().store, h().config);
    assert.equal(back.checked, 'all');
    assert.ok(back.events >= 2 && (await fingerprintOf(h(), b.id)) !== 'other', JSON.stringify(back));
  });

  it('checks everything when the change log was pruned past its last pass, or that pass did not finish', async () => {
    await createEvent(h());
    await renderStaleDocuments(h().store, h().config);
    await createEvent(h());
    const last = await createEvent(h());
    // Retention keeps the newest row: the changes between the last pass and it are gone.
    await h().store.transaction(async (trx) => {
      await sql`delete from changes where seq < (select max(seq) from changes)`.execute(trx);
    });
    await makeStale(h(), [last.id]);
    const pruned = await renderStaleDocuments(h().store, h().config);
    assert.equal(pruned.checked, 'all');
    assert.notEqual(await fingerprintOf(h(), last.id), 'other');

    // A pass of another fingerprint stopped before its end rewrote some documents without logging it: its token
    // replaced the mark, so the next pass of this fingerprint checks everything.
    const stopped = await renderStaleDocuments(h().store, otherSite(h()), () => true);
    assert.deepEqual([stopped.checked, stopped.events], ['all', 0]);
    assert.match((await readSetting(h().store.db, RENDERED_SETTING)) ?? '', /^rendering /);
    await makeStale(h(), [last.id]);
    const after = await renderStaleDocuments(h().store, h().config);
    assert.equal(after.checked, 'all');
    assert.notEqual(await fingerprintOf(h(), last.id), 'other');
  });

  it('walks every post in ranges of its key, one statement each, and finds the stale ones in each', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Walked hall' });
    const events = [await createEvent(h()), await createEvent(h()), await createEvent(h())];
    const ids = events.map((event) => Number(event.id));
    await makeStale(h(), ids);
    await h().store.transaction(async (trx) => {
      await sql`update linked_documents set fingerprint = 'other' where post_id = ${venue.id}`.execute(trx);
    });
    // Another fingerprint's token: everything is checked, two ids a statement.
    await h().store.transaction(async (trx) => {
      await sql`update settings set value = 'rendering other' where name = ${RENDERED_SETTING}`.execute(trx);
    });
    let run!: Awaited<ReturnType<typeof renderStaleDocuments>>;
    const statements = await statementsWithParameters(h().store, async () => {
      run = await renderStaleDocuments(h().store, h().config, () => false, 2);
    });
    assert.ok(run.events >= ids.length && run.linked >= 1, JSON.stringify(run));
    for (const id of ids) assert.notEqual(await fingerprintOf(h(), id), 'other');
    const checks = rangeChecks(statements, 'posts');
    const last = Math.max(...ids);
    assert.ok(checks.length >= Math.ceil(last / 2), `${checks.length} range statements for ids up to ${last}`);
    checks.forEach((check, index) => {
      assert.equal(check.after, index * 2, 'the ranges follow each other from the first id');
      assert.ok(check.through - check.after <= 2, `(${check.after}, ${check.through}]`);
    });
    assert.equal(checks.at(-1)!.through, last, 'the last range ends at the largest id');
    const plan = await queryPlan(h(), checks[0].query);
    if (h().database === 'sqlite')
      assert.match(plan, /^SEARCH posts USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    else assert.match(plan, /Index (Only )?Scan using posts_pkey on posts[\s\S]*Index Cond: \(\(id > /);
  });

  it('counts the events not counted yet in ranges of their key, one statement each', async () => {
    const events = [await createEvent(h()), await createEvent(h())];
    await h().store.transaction(async (trx) => {
      await sql`delete from occurrence_counts`.execute(trx);
      await sql`delete from counted_events`.execute(trx);
    });
    let counted = 0;
    const statements = await statementsWithParameters(h().store, async () => {
      counted = await countUncountedEvents(h().store, () => false, 3);
    });
    assert.equal(counted, await rowCount(h().store, 'events'));
    assert.equal(await rowCount(h().store, 'counted_events'), counted);
    const checks = rangeChecks(statements, 'events');
    const last = Math.max(...events.map((event) => Number(event.id)));
    assert.ok(checks.length >= Math.ceil(last / 3) && checks.at(-1)!.through === last, `${checks.length} ranges`);
    for (const check of checks) assert.ok(check.through - check.after <= 3, `(${check.after}, ${check.through}]`);
    const plan = await queryPlan(h(), checks[0].query);
    if (h().database === 'sqlite')
      assert.match(plan, /^SEARCH events USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    else assert.match(plan, /Index (Only )?Scan using events_pkey on events[\s\S]*Index Cond: \(\(id > /);
    assert.equal(await countUncountedEvents(h().store), 0, 'nothing left');
  });
});
