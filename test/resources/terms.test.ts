import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { sql } from 'kysely';
import { createRequestContext, type RequestContext } from '../../src/http/context.ts';
import { insertPost } from '../../src/core/posts/store.ts';
import { withTermCounts } from '../../src/core/terms/counts.ts';
import { termSortDirection, termSortKey } from '../../src/core/terms/query.ts';
import {
  loadEmbeddedTerms,
  resolveTermsForFilter,
  resolveTermsForWrite,
  setEventTerms,
  type Taxonomy,
} from '../../src/core/terms/service.ts';
import { uniqueTermSlug } from '../../src/core/terms/slugs.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';

const NOW = '2026-06-01T12:00:00Z';
/** The keys of a category, in the reference's order; a tag's are the same but `parent`. */
const CATEGORY_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls'];
const TAG_KEYS = CATEGORY_KEYS.filter((key) => key !== 'parent');

describe('uniqueTermSlug', () => {
  it('keeps a free base', () => {
    assert.equal(uniqueTermSlug('rock', ['music'], new Set(['jazz'])), 'rock');
  });

  it('numbers a taken top-level slug', () => {
    assert.equal(uniqueTermSlug('rock', [], new Set(['rock'])), 'rock-2');
    assert.equal(uniqueTermSlug('rock', [], new Set(['rock', 'rock-2'])), 'rock-3');
  });

  it('appends the ancestors of a child, nearest first, before numbering', () => {
    assert.equal(uniqueTermSlug('live', ['rock', 'music'], new Set(['live'])), 'live-rock');
    assert.equal(uniqueTermSlug('live', ['rock', 'music'], new Set(['live', 'live-rock'])), 'live-rock-music');
    assert.equal(
      uniqueTermSlug('live', ['rock', 'music'], new Set(['live', 'live-rock', 'live-rock-music'])),
      'live-rock-music-2',
    );
  });

  it('stays within 200 characters', () => {
    const base = 'a'.repeat(199);
    const slug = uniqueTermSlug(base, ['parent'], new Set([base]));
    assert.ok(slug.length <= 200);
    assert.notEqual(slug, base);
  });
});

describe('term list order parameters', () => {
  it('reads orderby case-insensitively and falls back to name', () => {
    assert.equal(termSortKey(undefined, false), 'name');
    assert.equal(termSortKey('ID', false), 'id');
    assert.equal(termSortKey('term_id', false), 'id');
    assert.equal(termSortKey('Count', false), 'count');
    assert.equal(termSortKey('include', true), 'include');
    assert.equal(termSortKey('include', false), 'name');
    assert.equal(termSortKey('include_slugs', false), 'name');
    assert.equal(termSortKey('bogus', false), 'name');
  });

  it('reads order as WordPress parse_order does', () => {
    assert.equal(termSortDirection(undefined), 'asc');
    assert.equal(termSortDirection('ASC'), 'asc');
    assert.equal(termSortDirection('desc'), 'desc');
    assert.equal(termSortDirection('sideways'), 'desc');
  });
});

interface EventOptions {
  status?: string;
  /** Publication date (UTC). */
  published?: string;
  categories?: number[];
  tags?: number[];
  author?: Credentials;
}

/** Events written straight to the store (any status, any date), counted as an event write counts them. */
async function insertEvent(h: Harness, options: EventOptions = {}): Promise<number> {
  const published = options.published ?? '2026-01-01 10:00:00';
  return h.store.transaction(async (trx) => {
    const post = await insertPost(
      trx,
      {
        type: 'event',
        author_id: (options.author ?? h.users.administrator).id,
        status: options.status ?? 'publish',
        title: 'An event',
        date_local: published,
        date_utc: published,
        modified_local: published,
        modified_utc: published,
      },
      'an-event',
    );
    const start = '2026-07-01 10:00:00';
    const end = '2026-07-01 12:00:00';
    await trx
      .insertInto('events')
      .values({
        id: post.id,
        timezone: 'UTC',
        timezone_abbr: 'UTC',
        all_day: 0,
        start_local: start,
        end_local: end,
        start_utc: start,
        end_utc: end,
        cost_values: '[]',
        currency_symbol: '',
        currency_position: '',
        website: null,
        show_map: 0,
        show_map_link: 0,
        hide_from_listings: 0,
        sticky: 0,
        featured: 0,
        venue_id: null,
      })
      .execute();
    await trx
      .insertInto('occurrences')
      .values({ event_id: post.id, start_local: start, end_local: end, start_utc: start, end_utc: end })
      .execute();
    const links = [...(options.categories ?? []), ...(options.tags ?? [])].map((termId) => ({
      event_id: post.id,
      term_id: termId,
    }));
    // Linked as an event write links them: the terms' counts move with it.
    await withTermCounts(trx, [post.id], async () => {
      if (links.length > 0) await trx.insertInto('event_terms').values(links).execute();
    });
    return post.id;
  });
}

function contextFor(h: Harness, user: Credentials | null): RequestContext {
  return createRequestContext(
    { config: h.config, store: h.store, clock: () => DateTime.fromISO(NOW, { zone: 'utc' }), caches: h.app.caches },
    user && { id: user.id, role: user.role },
    h.app.log,
  );
}

describeEachDatabase('categories and tags', (harness) => {
  const h = () => harness();
  let counter = 0;
  /** A name no other test uses, so tests do not depend on each other. */
  const unique = (prefix: string) => `${prefix} ${++counter}`;

  const createCategory = async (body: Record<string, unknown>, as: Credentials = h().users.editor) => {
    const response = await h().request('POST', '/categories', { as, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const createTag = async (body: Record<string, unknown>) => {
    const response = await h().request('POST', '/tags', { as: h().users.editor, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const getCategory = async (id: number) => (await h().request('GET', `/categories/${id}`)).json();

  describe('create', () => {
    it('answers 201 with the endpoint form, in the reference key order, and a Location', async () => {
      h().setNow(NOW);
      const response = await h().request('POST', '/categories', {
        as: h().users.administrator,
        body: { name: 'Sample Category', description: 'A sample category', slug: 'sample-category' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const term = response.json();
      const api = h().config.apiRoot;
      assert.deepEqual(term, {
        id: term.id,
        count: 0,
        description: 'A sample category',
        name: 'Sample Category',
        slug: 'sample-category',
        taxonomy: 'event_category',
        parent: 0,
        meta: [],
        url: `${h().config.siteUrl}/events/category/sample-category/`,
        urls: { self: `${api}/categories/${term.id}`, collection: `${api}/categories` },
      });
      assert.deepEqual(Object.keys(term), CATEGORY_KEYS);
      assert.equal(response.headers.location, `${api}/categories/${term.id}`);
      assert.equal(typeof term.id, 'number');
    });

    it('nests a child under its parent: parent, urls.up and the public URL', async () => {
      const parent = await createCategory({ name: unique('Music'), slug: 'music-nest' });
      const child = await createCategory({ name: unique('Rock'), slug: 'rock-nest', parent: parent.id });
      const grandchild = await createCategory({ name: unique('Live'), slug: 'live-nest', parent: child.id });
      assert.equal(child.parent, parent.id);
      assert.equal(child.urls.up, `${h().config.apiRoot}/categories/${parent.id}`);
      assert.equal(grandchild.url, `${h().config.siteUrl}/events/category/music-nest/rock-nest/live-nest/`);
      assert.equal(parent.urls.up, undefined);
    });

    it('makes a taken slug unique: -2 at the top level, <slug>-<parent-slug> for a child', async () => {
      const first = await createCategory({ name: unique('Jazz'), slug: 'jazz' });
      const second = await createCategory({ name: unique('Jazz again'), slug: 'jazz' });
      assert.equal(second.slug, 'jazz-2');
      const child = await createCategory({ name: unique('Jazz child'), slug: 'jazz', parent: first.id });
      assert.equal(child.slug, 'jazz-jazz');
      const otherChild = await createCategory({ name: unique('Jazz child'), slug: 'jazz', parent: first.id });
      assert.equal(otherChild.slug, 'jazz-jazz-2');
    });

    it('derives the slug from the name, with a fallback when nothing usable is left', async () => {
      const named = await createCategory({ name: 'Café Ünïque & Co' });
      assert.equal(named.slug, 'cafe-unique-co');
      const symbols = await createCategory({ name: '活动' });
      assert.match(symbols.slug, /^category(-\d+)?$/);
      const sanitised = await createCategory({
        name: '<b>Bold</b> name',
        description: '<p>Hi</p><script>alert(1)</script>',
      });
      assert.equal(sanitised.name, 'Bold name');
      assert.equal(sanitised.description, '<p>Hi</p>');
    });

    it('refuses a name used at the same level, case-insensitively for every script (term_exists)', async () => {
      const existing = await createCategory({ name: 'Ünïcode Fest' });
      const response = await h().request('POST', '/categories', {
        as: h().users.editor,
        body: { name: 'üNÏCODE fest', slug: 'other-slug' },
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        code: 'term_exists',
        message: 'A term with the name provided already exists with this parent.',
        data: { status: 400, term_id: existing.id },
        additional_data: [existing.id, existing.id],
      });
      const underAnotherParent = await createCategory({ name: 'Ünïcode Fest', parent: existing.id });
      assert.equal(underAnotherParent.parent, existing.id);
    });

    it('stays consistent under concurrent creates: one term per name, distinct slugs', async () => {
      const name = unique('Concurrent');
      const sameName = await Promise.all(
        Array.from({ length: 6 }, () => h().request('POST', '/categories', { as: h().users.editor, body: { name } })),
      );
      const created = sameName.filter((response) => response.statusCode === 201);
      assert.equal(created.length, 1, sameName.map((response) => response.body).join('\n'));
      for (const response of sameName.filter((candidate) => candidate.statusCode !== 201)) {
        assert.equal(response.json().code, 'term_exists');
        assert.equal(response.json().data.term_id, created[0].json().id);
      }
      const sameSlug = await Promise.all(
        Array.from({ length: 6 }, () =>
          h().request('POST', '/tags', { as: h().users.editor, body: { name: unique('Racing tag'), slug: 'racing' } }),
        ),
      );
      assert.deepEqual(
        sameSlug.map((response) => response.statusCode),
        [201, 201, 201, 201, 201, 201],
      );
      assert.deepEqual(sameSlug.map((response) => response.json().slug).sort(), [
        'racing',
        'racing-2',
        'racing-3',
        'racing-4',
        'racing-5',
        'racing-6',
      ]);
    });

    it('validates the fields before the permission check', async () => {
      const missing = await h().request('POST', '/categories', { body: { description: 'x' } });
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(missing.json(), {
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): name',
        data: { status: 400, params: ['name'] },
      });
      const empty = await h().request('POST', '/categories', { as: h().users.editor, body: { name: '' } });
      assert.equal(empty.json().code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(empty.json().data.params), ['name']);
      for (const parent of [0, 999999, 'abc']) {
        const response = await h().request('POST', '/categories', { body: { name: unique('Orphan'), parent } });
        assert.equal(response.statusCode, 400, `parent ${parent}`);
        assert.deepEqual(Object.keys(response.json().data.params), ['parent']);
      }
      const tag = await createTag({ name: unique('Not a category') });
      const tagAsParent = await h().request('POST', '/categories', {
        as: h().users.editor,
        body: { name: unique('Child'), parent: tag.id },
      });
      assert.equal(tagAsParent.statusCode, 400);
      for (const field of ['description', 'slug']) {
        const response = await h().request('POST', '/categories', {
          as: h().users.editor,
          body: { name: unique('Field'), [field]: '' },
        });
        assert.equal(response.statusCode, 400, field);
      }
    });

    it('refuses a name that sanitises to nothing', async () => {
      const response = await h().request('POST', '/categories', { as: h().users.editor, body: { name: '<b></b>' } });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'empty_term_name');
    });

    it('needs author or above for categories and editor or above for tags (§1.5)', async () => {
      const categoryStatus = async (as: Credentials | null) =>
        (await h().request('POST', '/categories', { as, body: { name: unique('Perm') } })).statusCode;
      const tagStatus = async (as: Credentials | null) =>
        (await h().request('POST', '/tags', { as, body: { name: unique('Perm') } })).statusCode;
      const { users } = h();
      assert.deepEqual(
        [
          await categoryStatus(null),
          await categoryStatus(users.subscriber),
          await categoryStatus(users.contributor),
          await categoryStatus(users.author),
          await categoryStatus(users.editor),
        ],
        [401, 403, 403, 201, 201],
      );
      assert.deepEqual(
        [
          await tagStatus(null),
          await tagStatus(users.subscriber),
          await tagStatus(users.contributor),
          await tagStatus(users.author),
          await tagStatus(users.editor),
          await tagStatus(users.administrator),
        ],
        [401, 403, 403, 403, 201, 201],
      );
      const forbidden = await h().request('POST', '/tags', { as: users.author, body: { name: unique('Perm') } });
      assert.deepEqual(forbidden.json(), {
        code: 'rest_forbidden',
        message: 'Sorry, you are not allowed to do that.',
        data: { status: 403 },
      });
    });

    it('advertises write methods only to those who may manage the taxonomy', async () => {
      assert.equal((await h().request('GET', '/categories')).headers.allow, 'GET');
      assert.equal((await h().request('GET', '/categories', { as: h().users.author })).headers.allow, 'GET, POST');
      assert.equal((await h().request('GET', '/tags', { as: h().users.author })).headers.allow, 'GET');
      const category = await createCategory({ name: unique('Allow') });
      assert.equal(
        (await h().request('GET', `/categories/${category.id}`, { as: h().users.editor })).headers.allow,
        'GET, POST, PUT, PATCH, DELETE',
      );
    });
  });

  describe('tags', () => {
    it('have no parent key and a flat public URL', async () => {
      const response = await h().request('POST', '/tags', { as: h().users.editor, form: { name: 'Sample Tag' } });
      assert.equal(response.statusCode, 201);
      const tag = response.json();
      assert.deepEqual(Object.keys(tag), TAG_KEYS);
      assert.equal(tag.taxonomy, 'event_tag');
      assert.equal(tag.url, `${h().config.siteUrl}/events/tag/sample-tag/`);
      assert.equal(response.headers.location, `${h().config.apiRoot}/tags/${tag.id}`);
      assert.deepEqual(tag.urls, {
        self: `${h().config.apiRoot}/tags/${tag.id}`,
        collection: `${h().config.apiRoot}/tags`,
      });
    });

    it('refuse a parent after the permission check (rest_taxonomy_not_hierarchical)', async () => {
      const parentTag = await createTag({ name: unique('Parent tag') });
      const anonymous = await h().request('POST', '/tags', {
        body: { name: unique('Child tag'), parent: parentTag.id },
      });
      assert.equal(anonymous.statusCode, 401);
      for (const parent of [parentTag.id, 0]) {
        const response = await h().request('POST', '/tags', {
          as: h().users.editor,
          body: { name: unique('Child tag'), parent },
        });
        assert.equal(response.statusCode, 400);
        assert.deepEqual(response.json(), {
          code: 'rest_taxonomy_not_hierarchical',
          message: 'Cannot set parent term, taxonomy is not hierarchical.',
          data: { status: 400 },
        });
      }
      const update = await h().request('PATCH', `/tags/${parentTag.id}`, { as: h().users.editor, body: { parent: 0 } });
      assert.equal(update.json().code, 'rest_taxonomy_not_hierarchical');
    });

    it('answer term_exists with the flat-taxonomy message', async () => {
      const existing = await createTag({ name: 'Duplicated Tag' });
      const response = await h().request('POST', '/tags', { as: h().users.editor, body: { name: 'duplicated tag' } });
      assert.deepEqual(response.json(), {
        code: 'term_exists',
        message: 'A term with the name provided already exists in this taxonomy.',
        data: { status: 400, term_id: existing.id },
        additional_data: [existing.id, existing.id],
      });
    });

    it('are not categories, and categories are not tags', async () => {
      const tag = await createTag({ name: unique('Kind') });
      const category = await createCategory({ name: unique('Kind') });
      assert.equal((await h().request('GET', `/categories/${tag.id}`)).statusCode, 400);
      assert.equal((await h().request('GET', `/tags/${category.id}`)).statusCode, 400);
      assert.equal((await h().request('GET', `/tags/${tag.id}`)).statusCode, 200);
    });
  });

  describe('single read', () => {
    it('is public and answers the endpoint form', async () => {
      const created = await createCategory({ name: unique('Readable') });
      const response = await h().request('GET', `/categories/${created.id}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), created);
      assert.equal(response.json()._links, undefined);
    });

    it('answers 400 for an unknown id and 404 for a non-numeric one', async () => {
      const unknown = await h().request('GET', '/categories/999999');
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().code, 'rest_invalid_param');
      assert.deepEqual(unknown.json().data.params, { id: 'Invalid parameter.' });
      const word = await h().request('GET', '/categories/abc');
      assert.equal(word.statusCode, 404);
      assert.equal(word.json().code, 'rest_no_route');
    });
  });

  describe('update', () => {
    it('changes only what was sent, on POST, PUT and PATCH', async () => {
      const term = await createCategory({ name: unique('Before'), description: 'Kept' });
      const renamed = await h().request('POST', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { name: 'After rename' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json().name, 'After rename');
      assert.equal(renamed.json().description, 'Kept');
      assert.equal(renamed.json().slug, term.slug, 'the slug changes only when sent');
      const described = await h().request('PUT', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { description: 'New' },
      });
      assert.equal(described.json().description, 'New');
      assert.equal(described.json().name, 'After rename');
      const reslugged = await h().request('PATCH', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { slug: 'After Slug' },
      });
      assert.equal(reslugged.json().slug, 'after-slug');
      assert.equal(reslugged.json().url, `${h().config.siteUrl}/events/category/after-slug/`);
    });

    it('answers 400 duplicate_term_slug for a slug another term holds (D7)', async () => {
      await createCategory({ name: unique('Holder'), slug: 'held-slug' });
      const term = await createCategory({ name: unique('Taker') });
      const response = await h().request('POST', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { slug: 'held-slug' },
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        code: 'duplicate_term_slug',
        message: 'The slug &#8220;held-slug&#8221; is already in use by another term.',
        data: { status: 400 },
      });
      assert.equal((await getCategory(term.id)).slug, term.slug, 'nothing changed');
      const own = await h().request('POST', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { slug: term.slug },
      });
      assert.equal(own.statusCode, 200);
    });

    it('derives the slug from the name when the one sent sanitises to nothing', async () => {
      await createCategory({ name: unique('Taken'), slug: 'derived-name' });
      const term = await createCategory({ name: 'Derived Name', slug: 'placeholder-slug' });
      const response = await h().request('PATCH', `/categories/${term.id}`, {
        as: h().users.editor,
        body: { slug: '?!' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().slug, 'derived-name-2');
    });

    it('refuses a name another term uses at the same level', async () => {
      const first = await createCategory({ name: 'Sibling One' });
      const second = await createCategory({ name: 'Sibling Two' });
      const response = await h().request('POST', `/categories/${second.id}`, {
        as: h().users.editor,
        body: { name: 'SIBLING ONE' },
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'term_exists');
      assert.equal(response.json().data.term_id, first.id);
      const caseOnly = await h().request('POST', `/categories/${second.id}`, {
        as: h().users.editor,
        body: { name: 'sibling two' },
      });
      assert.equal(caseOnly.statusCode, 200, 'renaming a term to itself in other case is fine');
    });

    it('moves a category, to the top level with parent 0, and refuses cycles', async () => {
      const root = await createCategory({ name: unique('Root'), slug: 'cycle-root' });
      const child = await createCategory({ name: unique('Child'), slug: 'cycle-child', parent: root.id });
      const grandchild = await createCategory({
        name: unique('Grandchild'),
        slug: 'cycle-grandchild',
        parent: child.id,
      });
      for (const parent of [root.id, grandchild.id]) {
        const response = await h().request('POST', `/categories/${root.id}`, {
          as: h().users.editor,
          body: { parent },
        });
        assert.equal(response.statusCode, 400, `parent ${parent}`);
        assert.equal(response.json().code, 'rest_invalid_param');
        assert.equal(response.json().data.details.parent.code, 'rest_term_parent_loop');
      }
      const top = await h().request('POST', `/categories/${grandchild.id}`, {
        as: h().users.editor,
        body: { parent: 0 },
      });
      assert.equal(top.statusCode, 200);
      assert.equal(top.json().parent, 0);
      assert.equal(top.json().url, `${h().config.siteUrl}/events/category/cycle-grandchild/`);
      const under = await h().request('POST', `/categories/${root.id}`, {
        as: h().users.editor,
        body: { parent: grandchild.id },
      });
      assert.equal(under.statusCode, 200, 'no longer a cycle');
      assert.equal(under.json().url, `${h().config.siteUrl}/events/category/cycle-grandchild/cycle-root/`);
    });

    it('validates before the permission check, then checks the permission', async () => {
      const unknown = await h().request('POST', '/categories/999999', { body: { name: 'x' } });
      assert.equal(unknown.statusCode, 400);
      const term = await createCategory({ name: unique('Guarded') });
      const badName = await h().request('PATCH', `/categories/${term.id}`, { body: { name: '' } });
      assert.equal(badName.statusCode, 400);
      assert.equal((await h().request('PATCH', `/categories/${term.id}`, { body: { name: 'x' } })).statusCode, 401);
      assert.equal(
        (await h().request('PATCH', `/categories/${term.id}`, { as: h().users.contributor, body: { name: 'x' } }))
          .statusCode,
        403,
      );
      assert.equal(
        (
          await h().request('PATCH', `/categories/${term.id}`, {
            as: h().users.author,
            body: { name: unique('Author rename') },
          })
        ).statusCode,
        200,
      );
    });
  });

  describe('count', () => {
    it('counts the published events that carry the term, and follows every change', async () => {
      h().setNow(NOW);
      const category = await createCategory({ name: unique('Counted') });
      const tag = await createTag({ name: unique('Counted') });
      const count = async () => (await getCategory(category.id)).count;

      const published = await insertEvent(h(), { categories: [category.id], tags: [tag.id] });
      await insertEvent(h(), { status: 'draft', categories: [category.id] });
      await insertEvent(h(), { status: 'private', categories: [category.id] });
      await insertEvent(h(), { status: 'pending', categories: [category.id] });
      const scheduled = [
        await insertEvent(h(), { status: 'future', published: '2026-06-01 11:00:00', categories: [category.id] }),
        await insertEvent(h(), { status: 'future', published: '2026-06-02 11:00:00', categories: [category.id] }),
      ];
      assert.equal(await count(), 2, 'publish plus the future event that is due (D17)');
      assert.equal((await h().request('GET', `/tags/${tag.id}`)).json().count, 1);

      h().setNow('2026-06-03T00:00:00Z');
      assert.equal(await count(), 3, 'the second scheduled event came due');

      assert.equal(
        (await h().request('DELETE', `/events/${published}`, { as: h().users.administrator })).statusCode,
        200,
      );
      assert.equal(await count(), 2, 'trashed events do not count');
      for (const id of scheduled) {
        assert.equal(
          (await h().request('DELETE', `/events/${id}`, { as: h().users.administrator, query: { force: 'true' } }))
            .statusCode,
          200,
        );
      }
      assert.equal(await count(), 0, 'deleted events do not count');
      h().setNow(NOW);
    });

    it("is the same in the terms an event embeds, read between writes, clock moves and another process's writes", async () => {
      h().setNow(NOW);
      const category = await createCategory({ name: unique('Embedded count') });
      const reader = await insertEvent(h(), { categories: [category.id] });
      // Authenticated, so the one-second answer cache of anonymous reads is not what is measured.
      const embedded = async () => {
        const response = await h().request('GET', `/events/${reader}`, { as: h().users.administrator });
        assert.equal(response.statusCode, 200, response.body);
        return response.json().categories[0].count as number;
      };
      assert.equal(await embedded(), 1);
      assert.equal(await embedded(), 1, 'read again, unchanged');

      await insertEvent(h(), { status: 'future', published: '2026-06-01 12:30:00', categories: [category.id] });
      assert.equal(await embedded(), 1, 'a scheduled event does not count before its date');
      h().setNow('2026-06-01T12:29:59Z');
      assert.equal(await embedded(), 1);
      h().setNow('2026-06-01T12:30:00Z');
      assert.equal(await embedded(), 2, 'it counts from its date, with no write in between');
      assert.equal(await embedded(), (await getCategory(category.id)).count);

      const another = await h().openAnotherStore();
      try {
        await another.transaction(async (trx) => {
          await trx
            .updateTable('terms')
            .set({ published_count: sql`published_count + 5`, name: 'Renamed elsewhere' })
            .where('id', '=', category.id)
            .execute();
        });
      } finally {
        await another.close();
      }
      const response = await h().request('GET', `/events/${reader}`, { as: h().users.administrator });
      assert.equal(response.json().categories[0].count, 7, 'a commit through another connection is seen at once');
      assert.equal(response.json().categories[0].name, 'Renamed elsewhere');
      h().setNow(NOW);
    });
  });

  describe('delete', () => {
    it('is permanent, answers the term as it was, takes it off every event and re-parents its children', async () => {
      const grandparent = await createCategory({ name: unique('Grandparent'), slug: 'del-grandparent' });
      const doomed = await createCategory({ name: unique('Doomed'), slug: 'del-doomed', parent: grandparent.id });
      const child = await createCategory({ name: unique('Child'), slug: 'del-child', parent: doomed.id });
      const keeper = await createCategory({ name: unique('Keeper') });
      const event = await insertEvent(h(), { categories: [doomed.id, keeper.id] });

      const response = await h().request('DELETE', `/categories/${doomed.id}`, { as: h().users.editor });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { ...doomed, count: 1 });

      const links = await h()
        .store.db.selectFrom('event_terms')
        .select('term_id')
        .where('event_id', '=', event)
        .execute();
      assert.deepEqual(
        links.map((link) => link.term_id),
        [keeper.id],
      );
      const moved = await getCategory(child.id);
      assert.equal(moved.parent, grandparent.id);
      assert.equal(moved.url, `${h().config.siteUrl}/events/category/del-grandparent/del-child/`);

      const again = await h().request('DELETE', `/categories/${doomed.id}`, { as: h().users.editor });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().code, 'rest_invalid_param');
      assert.equal((await h().request('GET', `/categories/${doomed.id}`)).statusCode, 400);
    });

    it('validates before the permission check', async () => {
      assert.equal((await h().request('DELETE', '/categories/999999')).statusCode, 400);
      const tag = await createTag({ name: unique('Guarded tag') });
      assert.equal((await h().request('DELETE', `/tags/${tag.id}`)).statusCode, 401);
      assert.equal((await h().request('DELETE', `/tags/${tag.id}`, { as: h().users.author })).statusCode, 403);
      assert.equal((await h().request('DELETE', `/tags/${tag.id}`, { as: h().users.editor })).statusCode, 200);
    });
  });
});

describeEachDatabase('category and tag lists', (harness) => {
  const h = () => harness();
  const editor = () => h().users.editor;
  const create = async (collection: 'categories' | 'tags', body: Record<string, unknown>) => {
    const response = await h().request('POST', `/${collection}`, { as: editor(), body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const list = async (collection: 'categories' | 'tags', query: Record<string, string | number> = {}) => {
    const response = await h().request('GET', `/${collection}`, { query });
    assert.equal(response.statusCode, 200, response.body);
    return response;
  };
  const names = async (collection: 'categories' | 'tags', query: Record<string, string | number> = {}) =>
    (await list(collection, query)).json()[collection].map((term: { name: string }) => term.name);

  // b, A, C (reference test) plus non-ASCII names; `Empty` and its child are used by no event.
  let ids: Record<string, number>;
  let eventId: number;
  let draftEventId: number;
  let tagIds: number[];

  it('sets up terms and events', async () => {
    h().setNow(NOW);
    ids = {};
    for (const name of ['b', 'A', 'C', 'émile', 'Éclair']) ids[name] = (await create('categories', { name })).id;
    ids.Parent = (await create('categories', { name: 'Parent', description: 'Used through its child' })).id;
    ids.Kid = (await create('categories', { name: 'Kid', parent: ids.Parent })).id;
    ids.Empty = (await create('categories', { name: 'Empty' })).id;
    ids.EmptyKid = (await create('categories', { name: 'Empty kid', parent: ids.Empty })).id;
    tagIds = [];
    for (const name of ['tag one', 'Tag Two', 'unused tag']) tagIds.push((await create('tags', { name })).id);

    eventId = await insertEvent(h(), { categories: [ids.b, ids.A, ids.Kid], tags: [tagIds[0], tagIds[1]] });
    await insertEvent(h(), { categories: [ids.A, ids.C, ids.émile, ids.Éclair], tags: [tagIds[1]] });
    await insertEvent(h(), { categories: [ids.A] });
    draftEventId = await insertEvent(h(), { status: 'draft', categories: [ids.Empty] });
  });

  it('hides unused terms by default; an empty parent of a used child stays', async () => {
    assert.deepEqual(await names('categories'), ['A', 'b', 'C', 'Kid', 'Parent', 'Éclair', 'émile']);
    assert.deepEqual(await names('categories', { hide_empty: 'false', per_page: 50 }), [
      'A',
      'b',
      'C',
      'Empty',
      'Empty kid',
      'Kid',
      'Parent',
      'Éclair',
      'émile',
    ]);
    assert.deepEqual(await names('tags'), ['tag one', 'Tag Two']);
    assert.deepEqual(await names('tags', { hide_empty: '0' }), ['tag one', 'Tag Two', 'unused tag']);
  });

  it('answers the §9.1 envelope, with counts, in key order, and the totals headers', async () => {
    const response = await list('categories', { per_page: 2 });
    const body = response.json();
    const base = `${h().config.apiRoot}/categories/`;
    assert.deepEqual(Object.keys(body), ['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url']);
    assert.equal(body.rest_url, `${base}?page=1&per_page=2&hide_empty=true`);
    assert.equal(body.next_rest_url, `${base}?per_page=2&hide_empty=true&page=2`);
    assert.equal(body.total, 7);
    assert.equal(body.total_pages, 4);
    assert.deepEqual(
      body.categories.map((term: { count: number }) => term.count),
      [3, 1],
    );
    assert.deepEqual(Object.keys(body.categories[0]), CATEGORY_KEYS);
    assert.equal(response.headers['x-tec-total'], '7');
    assert.equal(response.headers['x-tec-totalpages'], '4');
    assert.equal(response.headers['x-wp-total'], '7');
    assert.equal(response.headers['x-wp-totalpages'], '4');
    assert.equal(response.headers.link, `<${body.next_rest_url}>; rel="next"`);

    const second = (await list('categories', { per_page: 2, page: 2 })).json();
    assert.deepEqual(Object.keys(second), [
      'rest_url',
      'total',
      'total_pages',
      'categories',
      'next_rest_url',
      'previous_rest_url',
    ]);
    assert.equal(second.previous_rest_url, `${base}?per_page=2&hide_empty=true`);
    const third = (await list('categories', { per_page: 2, page: 3 })).json();
    assert.equal(third.previous_rest_url, `${base}?per_page=2&hide_empty=true&page=2`);
  });

  it('answers 200 with an empty list and a previous link beyond the last page', async () => {
    const response = await list('tags', { page: 5 });
    const body = response.json();
    assert.deepEqual(body.tags, []);
    assert.equal(body.total, 2);
    assert.equal(body.total_pages, 1);
    assert.equal(body.next_rest_url, undefined);
    assert.equal(body.previous_rest_url, `${h().config.apiRoot}/tags/?per_page=10&hide_empty=true&page=4`);
    assert.deepEqual(Object.keys(body), ['rest_url', 'total', 'total_pages', 'tags', 'previous_rest_url']);
    assert.equal(response.headers.link, `<${body.previous_rest_url}>; rel="prev"`);
  });

  it('clamps per_page to the configured maximum and validates paging', async () => {
    const clamped = (await list('categories', { per_page: 1000 })).json();
    assert.match(clamped.rest_url, new RegExp(`per_page=${h().config.perPageMax}&`));
    for (const query of [{ per_page: 0 }, { page: 0 }, { page: 'x' }, { per_page: -1 }] as Array<
      Record<string, string | number>
    >) {
      const response = await h().request('GET', '/categories', { query });
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assert.equal(response.json().code, 'rest_invalid_param');
    }
  });

  it('orders by name case-insensitively by default, and by the other keys with id ascending last', async () => {
    assert.deepEqual(await names('categories', { order: 'desc' }), ['émile', 'Éclair', 'Parent', 'Kid', 'C', 'b', 'A']);
    assert.deepEqual(await names('categories', { order: 'sideways' }), [
      'émile',
      'Éclair',
      'Parent',
      'Kid',
      'C',
      'b',
      'A',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'id' }), ['b', 'A', 'C', 'émile', 'Éclair', 'Parent', 'Kid']);
    assert.deepEqual(await names('categories', { orderby: 'ID', order: 'DESC' }), [
      'Kid',
      'Parent',
      'Éclair',
      'émile',
      'C',
      'A',
      'b',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'count', order: 'desc' }), [
      'A',
      'b',
      'C',
      'émile',
      'Éclair',
      'Kid',
      'Parent',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'count' }), [
      'Parent',
      'b',
      'C',
      'émile',
      'Éclair',
      'Kid',
      'A',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'slug' }), [
      'A',
      'b',
      'C',
      'Éclair',
      'émile',
      'Kid',
      'Parent',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'term_group' }), [
      'b',
      'A',
      'C',
      'émile',
      'Éclair',
      'Parent',
      'Kid',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'description', order: 'desc' }), [
      'Parent',
      'b',
      'A',
      'C',
      'émile',
      'Éclair',
      'Kid',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'include', include: `${ids.C},${ids.A},b` }), [
      'C',
      'A',
      'b',
    ]);
    assert.deepEqual(await names('categories', { orderby: 'nonsense' }), [
      'A',
      'b',
      'C',
      'Kid',
      'Parent',
      'Éclair',
      'émile',
    ]);
    for (const query of [{ order: '' }, { orderby: '' }] as Array<Record<string, string>>) {
      assert.equal((await h().request('GET', '/categories', { query })).statusCode, 400);
    }
  });

  it('filters by search (name or slug, case-insensitive), slug, include, exclude and parent', async () => {
    assert.deepEqual(await names('categories', { search: 'ÉMI' }), ['émile']);
    assert.deepEqual(await names('categories', { search: 'eclair' }), ['Éclair'], 'the slug is searched too');
    assert.deepEqual(await names('categories', { search: '%' }), []);
    assert.deepEqual(await names('categories', { slug: 'kid' }), ['Kid']);
    assert.deepEqual(await names('categories', { include: `${ids.b},c` }), ['b', 'C']);
    assert.deepEqual(await names('tags', { include: [tagIds[1]].join(',') }), ['Tag Two']);
    assert.deepEqual(await names('categories', { exclude: `a,${ids.C}` }), ['b', 'Kid', 'Parent', 'Éclair', 'émile']);
    assert.deepEqual(await names('categories', { parent: ids.Parent }), ['Kid']);
    assert.deepEqual(await names('categories', { parent: ids.Empty, hide_empty: 'false' }), ['Empty kid']);

    const response = await h().request('GET', '/categories', {
      query: { include: [ids.b, 'c'], exclude: ids.A, search: 'a b&c' },
    });
    assert.equal(
      response.json().rest_url,
      `${h().config.apiRoot}/categories/?page=1&per_page=10&search=a%20b%26c&exclude=${ids.A}&include=${ids.b}%2Cc&hide_empty=true`,
    );
  });

  it('refuses unknown terms in include, exclude and parent, and a parent of 0', async () => {
    const queries: Array<Record<string, string | number>> = [
      { include: 'no-such-category' },
      { include: `${ids.b},999999` },
      { exclude: 999999 },
      { include: '' },
      { parent: 0 },
      { parent: 999999 },
      { parent: tagIds[0] },
      { include: tagIds[0] },
      { search: '' },
      { slug: '' },
    ];
    for (const query of queries) {
      const response = await h().request('GET', '/categories', { query });
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assert.equal(response.json().code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(response.json().data.params), Object.keys(query));
    }
    assert.equal((await h().request('GET', '/tags', { query: { include: ids.A } })).statusCode, 400);
  });

  it('filters by event with post or its alias event, and refuses what is not an event', async () => {
    assert.deepEqual(await names('categories', { post: eventId }), ['A', 'b', 'Kid']);
    assert.deepEqual(await names('tags', { event: eventId }), ['tag one', 'Tag Two']);
    const echoed = (await list('tags', { event: eventId })).json().rest_url;
    assert.equal(echoed, `${h().config.apiRoot}/tags/?page=1&per_page=10&hide_empty=true&event=${eventId}`);
    const ofDraft = async (as: Credentials | null, query: Record<string, string | number>) =>
      h().request('GET', '/categories', { as, query: { post: draftEventId, ...query } });
    assert.equal((await ofDraft(null, { hide_empty: 'false' })).statusCode, 401, 'a draft event is not public (D19)');
    assert.equal(
      (await ofDraft(h().users.contributor, { hide_empty: 'false' })).statusCode,
      403,
      "nor someone else's to a contributor",
    );
    assert.deepEqual((await ofDraft(editor(), {})).json().categories, [], 'the draft event is the only user of Empty');
    assert.deepEqual(
      (await ofDraft(editor(), { hide_empty: 'false' })).json().categories.map((term: { name: string }) => term.name),
      ['Empty'],
    );
    const venue = await h().request('POST', '/venues', { as: editor(), body: { venue: 'Not an event' } });
    for (const value of [999999, venue.json().id, 0, 'x']) {
      const response = await h().request('GET', '/categories', { query: { event: value } });
      assert.equal(response.statusCode, 400, String(value));
    }
  });

  it('lists a term created later and forgets a deleted one (no stale counts)', async () => {
    const late = await create('tags', { name: 'Late tag' });
    assert.deepEqual(await names('tags'), ['tag one', 'Tag Two']);
    await insertEvent(h(), { tags: [late.id] });
    assert.deepEqual(await names('tags'), ['Late tag', 'tag one', 'Tag Two']);
    await h().request('DELETE', `/tags/${late.id}`, { as: editor() });
    assert.deepEqual(await names('tags'), ['tag one', 'Tag Two']);
  });
});

describeEachDatabase('terms service for events', (harness) => {
  const h = () => harness();
  const categoriesOf = async (event: number, taxonomy: Taxonomy = 'event_category') =>
    (
      await h()
        .store.db.selectFrom('event_terms')
        .innerJoin('terms', 'terms.id', 'event_terms.term_id')
        .select('terms.id')
        .where('event_terms.event_id', '=', event)
        .where('terms.taxonomy', '=', taxonomy)
        .orderBy('terms.id')
        .execute()
    ).map((row) => row.id);

  it('resolves ids, slugs and names, skips unknown ids and creates unknown names for those who may', async () => {
    const ctx = contextFor(h(), h().users.author);
    const existing = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, ctx, 'event_category', ['Ñandú Música']),
    );
    assert.equal(existing.ok, true);
    const [nanduId] = (existing as { ids: number[] }).ids;

    const result = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, ctx, 'event_category', [
        nanduId,
        'nandu-musica',
        'ñANDÚ música',
        '999999',
        -3,
        '1.5',
        3000000000,
        ' ',
        'Brand New',
        ` ${nanduId} `,
      ]),
    );
    assert.equal(result.ok, true);
    const ids = (result as { ids: number[] }).ids;
    assert.equal(ids.length, 2, 'duplicates removed, unknown or impossible ids skipped');
    assert.equal(ids[0], nanduId);
    const created = await h()
      .store.db.selectFrom('terms')
      .selectAll()
      .where('id', '=', ids[1])
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [created.name, created.slug, created.taxonomy, created.parent_id],
      ['Brand New', 'brand-new', 'event_category', 0],
    );
  });

  it('refuses to create terms for callers who may not manage the taxonomy (D16)', async () => {
    const author = contextFor(h(), h().users.author);
    const refused = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, author, 'event_tag', ['Existing?', 'Nope']),
    );
    assert.deepEqual(refused, { ok: false, name: 'Existing?' });
    const editorCtx = contextFor(h(), h().users.editor);
    const made = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, editorCtx, 'event_tag', ['Existing?']),
    );
    assert.equal(made.ok, true);
    const found = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, author, 'event_tag', ['existing?']),
    );
    assert.deepEqual(found, made, 'existing names resolve for anyone');
    const contributor = contextFor(h(), h().users.contributor);
    const none = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, contributor, 'event_category', ['Not there']),
    );
    assert.deepEqual(none, { ok: false, name: 'Not there' });
  });

  it('replaces one taxonomy of an event at a time', async () => {
    const ctx = contextFor(h(), h().users.editor);
    const event = await insertEvent(h());
    const cats = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, ctx, 'event_category', ['Cat one', 'Cat two']),
    );
    const tags = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, ctx, 'event_tag', ['Tag one']),
    );
    assert.ok(cats.ok && tags.ok);
    await h().store.transaction(async (trx) => {
      await setEventTerms(trx, event, 'event_category', cats.ids);
      await setEventTerms(trx, event, 'event_tag', [...tags.ids, cats.ids[0]]);
    });
    assert.deepEqual(await categoriesOf(event), cats.ids);
    assert.deepEqual(await categoriesOf(event, 'event_tag'), tags.ids, 'a category id is not a tag');
    await h().store.transaction((trx) => setEventTerms(trx, event, 'event_category', [cats.ids[1]]));
    assert.deepEqual(await categoriesOf(event), [cats.ids[1]]);
    assert.deepEqual(await categoriesOf(event, 'event_tag'), tags.ids);
    await h().store.transaction((trx) => setEventTerms(trx, event, 'event_category', []));
    assert.deepEqual(await categoriesOf(event), []);
  });

  it('resolves event-list filters with descendants, or null when one value is unknown', async () => {
    const post = async (path: string, body: Record<string, unknown>) =>
      (await h().request('POST', path, { as: h().users.editor, body })).json();
    const root = await post('/categories', { name: 'Filter root', slug: 'filter-root' });
    const child = await post('/categories', { name: 'Filter child', parent: root.id });
    const grandchild = await post('/categories', { name: 'Filter grandchild', parent: child.id });
    const other = await post('/categories', { name: 'Filter other', slug: 'filter-other' });
    const tag = await post('/tags', { name: 'Filter tag', slug: 'filter-tag' });

    const resolved = await resolveTermsForFilter(h().store.db, 'event_category', ['filter-root', String(other.id)]);
    assert.deepEqual(
      resolved?.sort((a, b) => a - b),
      [root.id, child.id, grandchild.id, other.id].sort((a, b) => a - b),
    );
    assert.deepEqual(await resolveTermsForFilter(h().store.db, 'event_tag', ['filter-tag']), [tag.id]);
    assert.equal(await resolveTermsForFilter(h().store.db, 'event_category', ['filter-root', 'missing']), null);
    assert.equal(await resolveTermsForFilter(h().store.db, 'event_category', [String(tag.id)]), null);
    assert.equal(await resolveTermsForFilter(h().store.db, 'event_tag', []), null);
  });

  it('loads embedded terms for many events in the §3.5 form, sorted by name', async () => {
    h().setNow(NOW);
    const ctx = contextFor(h(), null);
    const editorCtx = contextFor(h(), h().users.editor);
    const parent = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, editorCtx, 'event_category', ['Embed parent']),
    );
    assert.ok(parent.ok);
    const child = (
      await h().request('POST', '/categories', {
        as: h().users.editor,
        body: { name: 'embed child', parent: parent.ids[0], description: 'Desc' },
      })
    ).json();
    const tags = await h().store.transaction((trx) =>
      resolveTermsForWrite(trx, h().store, editorCtx, 'event_tag', ['Zeta embed', 'alpha embed']),
    );
    assert.ok(tags.ok);
    const first = await insertEvent(h(), { categories: [parent.ids[0], child.id], tags: tags.ids });
    const second = await insertEvent(h(), { status: 'draft', categories: [child.id] });
    const bare = await insertEvent(h());

    const embedded = await loadEmbeddedTerms(h().store.db, ctx, [first, second, bare, first]);
    assert.deepEqual([...embedded.keys()], [first, second, bare]);
    assert.deepEqual(embedded.get(bare), { categories: [], tags: [] });
    const api = h().config.apiRoot;
    assert.deepEqual(
      embedded.get(first)!.categories.map((term) => term.name),
      ['embed child', 'Embed parent'],
    );
    assert.deepEqual(embedded.get(first)!.categories[0], {
      name: 'embed child',
      slug: 'embed-child',
      term_group: 0,
      term_taxonomy_id: child.id,
      taxonomy: 'event_category',
      description: 'Desc',
      parent: parent.ids[0],
      count: 1,
      filter: 'raw',
      id: child.id,
      urls: {
        self: `${api}/categories/${child.id}`,
        collection: `${api}/categories`,
        up: `${api}/categories/${parent.ids[0]}`,
      },
    });
    assert.deepEqual(
      embedded.get(first)!.tags.map((term) => [term.name, term.taxonomy, term.parent]),
      [
        ['alpha embed', 'event_tag', 0],
        ['Zeta embed', 'event_tag', 0],
      ],
    );
    assert.deepEqual(
      embedded.get(second)!.categories.map((term) => term.id),
      [child.id],
    );
    assert.deepEqual(embedded.get(second)!.tags, []);
    assert.deepEqual(await loadEmbeddedTerms(h().store.db, ctx, []), new Map());
  });
});
