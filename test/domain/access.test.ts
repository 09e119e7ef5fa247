import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  POST_STATUSES,
  ROLES,
  canAccessProtected,
  canCreatePosts,
  canDeletePost,
  canEditPost,
  canManageCategories,
  canManageTags,
  canPublish,
  canReadPost,
  canReadPrivate,
  effectiveStatus,
  listStatusesAllowed,
  listVisibilityScope,
  scaleBackStatus,
  type Caller,
  type ListVisibility,
  type PostLike,
  type PostType,
  type Viewer,
} from '../../src/domain/access.ts';

const NOW = '2030-06-15 12:00:00';
const PAST = '2030-06-15 11:59:59';
const LATER = '2030-06-15 12:00:01';

const admin: Caller = { id: 1, role: 'administrator' };
const editor: Caller = { id: 2, role: 'editor' };
const author: Caller = { id: 3, role: 'author' };
const contributor: Caller = { id: 4, role: 'contributor' };
const subscriber: Caller = { id: 5, role: 'subscriber' };
const OTHER_USER_ID = 99;

/** The columns of every Y/N expectation row below (Y = allowed, N = refused). */
const VIEWERS: readonly [string, Viewer][] = [
  ['administrator', admin],
  ['editor', editor],
  ['author', author],
  ['contributor', contributor],
  ['subscriber', subscriber],
  ['anonymous', null],
];

function expectations(row: string): boolean[] {
  const flags = row.replaceAll(' ', '');
  assert.equal(flags.length, VIEWERS.length, `expectation row "${row}"`);
  return [...flags].map((flag) => flag === 'Y');
}

type Ownership = 'own' | 'other';

function postFor(viewer: Viewer, ownership: Ownership, fields: Omit<PostLike, 'authorId'>): PostLike {
  return { ...fields, authorId: ownership === 'own' && viewer !== null ? viewer.id : OTHER_USER_ID };
}

const POST_CASES: Record<string, Omit<PostLike, 'authorId'>> = {
  publish: { status: 'publish', publishedUtc: PAST },
  'future, due': { status: 'future', publishedUtc: PAST },
  'future, due this second': { status: 'future', publishedUtc: NOW },
  'future, not yet due': { status: 'future', publishedUtc: LATER },
  draft: { status: 'draft', publishedUtc: PAST },
  pending: { status: 'pending', publishedUtc: PAST },
  private: { status: 'private', publishedUtc: PAST },
  'trash, was draft': { status: 'trash', publishedUtc: PAST, statusBeforeTrash: 'draft' },
  'trash, was pending': { status: 'trash', publishedUtc: PAST, statusBeforeTrash: 'pending' },
  'trash, was publish': { status: 'trash', publishedUtc: PAST, statusBeforeTrash: 'publish' },
  'trash, was future': { status: 'trash', publishedUtc: LATER, statusBeforeTrash: 'future' },
  'trash, previous status unknown': { status: 'trash', publishedUtc: PAST },
};

describe('roles and statuses', () => {
  test('ROLES lists the five WordPress roles, strongest first', () => {
    assert.deepEqual(ROLES, ['administrator', 'editor', 'author', 'contributor', 'subscriber']);
  });

  test('POST_STATUSES are the six registered statuses, without auto-draft or inherit', () => {
    assert.deepEqual(POST_STATUSES, ['publish', 'future', 'draft', 'pending', 'private', 'trash']);
  });
});

describe('effectiveStatus (D17)', () => {
  const cases: [string, PostLike, string][] = [
    ['future in the past is publish', { authorId: 1, status: 'future', publishedUtc: PAST }, 'publish'],
    ['future at exactly now is publish', { authorId: 1, status: 'future', publishedUtc: NOW }, 'publish'],
    ['future still to come stays future', { authorId: 1, status: 'future', publishedUtc: LATER }, 'future'],
    ['a draft with a past date stays draft', { authorId: 1, status: 'draft', publishedUtc: PAST }, 'draft'],
    ['a trashed item stays trash', { authorId: 1, status: 'trash', publishedUtc: PAST }, 'trash'],
    ['publish stays publish', { authorId: 1, status: 'publish', publishedUtc: LATER }, 'publish'],
  ];
  for (const [name, post, expected] of cases) {
    test(name, () => assert.equal(effectiveStatus(post, NOW), expected));
  }
});

describe('capability predicates', () => {
  // Y/N columns: administrator editor author contributor subscriber anonymous
  const table: [string, (viewer: Viewer) => boolean, string][] = [
    ['canCreatePosts', canCreatePosts, 'Y Y Y Y N N'],
    ['canPublish', canPublish, 'Y Y Y N N N'],
    ['canReadPrivate', canReadPrivate, 'Y Y N N N N'],
    ['canManageCategories', canManageCategories, 'Y Y Y N N N'],
    ['canManageTags', canManageTags, 'Y Y N N N N'],
  ];
  for (const [name, predicate, row] of table) {
    const expected = expectations(row);
    VIEWERS.forEach(([who, viewer], column) => {
      test(`${name}: ${who} → ${expected[column]}`, () => assert.equal(predicate(viewer), expected[column]));
    });
  }
});

describe('canEditPost and canDeletePost (map_meta_cap)', () => {
  // Y/N columns: administrator editor author contributor subscriber anonymous
  const table: [string, Ownership, string][] = [
    ['publish', 'own', 'Y Y Y N N N'],
    ['future, due', 'own', 'Y Y Y N N N'],
    ['future, not yet due', 'own', 'Y Y Y N N N'],
    ['draft', 'own', 'Y Y Y Y N N'],
    ['pending', 'own', 'Y Y Y Y N N'],
    ['private', 'own', 'Y Y Y Y N N'],
    ['trash, was draft', 'own', 'Y Y Y Y N N'],
    ['trash, was pending', 'own', 'Y Y Y Y N N'],
    ['trash, was publish', 'own', 'Y Y Y N N N'],
    ['trash, was future', 'own', 'Y Y Y N N N'],
    ['trash, previous status unknown', 'own', 'Y Y Y N N N'],
    ['publish', 'other', 'Y Y N N N N'],
    ['future, due', 'other', 'Y Y N N N N'],
    ['future, not yet due', 'other', 'Y Y N N N N'],
    ['draft', 'other', 'Y Y N N N N'],
    ['pending', 'other', 'Y Y N N N N'],
    ['private', 'other', 'Y Y N N N N'],
    ['trash, was draft', 'other', 'Y Y N N N N'],
    ['trash, was publish', 'other', 'Y Y N N N N'],
  ];
  for (const [postCase, ownership, row] of table) {
    const expected = expectations(row);
    VIEWERS.forEach(([who, viewer], column) => {
      const post = postFor(viewer, ownership, POST_CASES[postCase]);
      test(`edit ${ownership} ${postCase}: ${who} → ${expected[column]}`, () => {
        assert.equal(canEditPost(viewer, post, NOW), expected[column]);
      });
      test(`delete ${ownership} ${postCase}: ${who} → ${expected[column]}`, () => {
        assert.equal(canDeletePost(viewer, post, NOW), expected[column]);
      });
    });
  }

  test('an item without an author (authorId 0) is nobody’s own', () => {
    const orphanDraft: PostLike = { authorId: 0, status: 'draft', publishedUtc: PAST };
    assert.equal(canEditPost({ id: 0, role: 'contributor' }, orphanDraft, NOW), false);
    assert.equal(canEditPost(editor, orphanDraft, NOW), true);
  });
});

describe('canReadPost (§10)', () => {
  // Y/N columns: administrator editor author contributor subscriber anonymous
  const table: [string, Ownership, PostType[], string][] = [
    ['publish', 'other', ['event', 'venue', 'organizer'], 'Y Y Y Y Y Y'],
    ['future, due', 'other', ['event', 'venue', 'organizer'], 'Y Y Y Y Y Y'],
    ['future, due this second', 'other', ['event', 'venue'], 'Y Y Y Y Y Y'],
    ['future, not yet due', 'own', ['event', 'venue', 'organizer'], 'Y Y Y Y Y N'],
    ['future, not yet due', 'other', ['event', 'venue', 'organizer'], 'Y Y N N N N'],
    ['draft', 'own', ['event', 'venue', 'organizer'], 'Y Y Y Y Y N'],
    ['draft', 'other', ['event', 'venue', 'organizer'], 'Y Y N N N N'],
    ['pending', 'own', ['event', 'venue', 'organizer'], 'Y Y Y Y Y N'],
    ['pending', 'other', ['event', 'venue', 'organizer'], 'Y Y N N N N'],
    ['private', 'own', ['event', 'venue', 'organizer'], 'Y Y Y Y Y N'],
    ['private', 'other', ['event', 'venue', 'organizer'], 'Y Y N N N N'],
    ['trash, was draft', 'own', ['event'], 'N N N N N N'],
    ['trash, was draft', 'other', ['event'], 'N N N N N N'],
    ['trash, was publish', 'own', ['venue', 'organizer'], 'Y Y Y Y Y N'],
    ['trash, was publish', 'other', ['venue', 'organizer'], 'Y Y N N N N'],
  ];
  for (const [postCase, ownership, types, row] of table) {
    const expected = expectations(row);
    for (const type of types) {
      VIEWERS.forEach(([who, viewer], column) => {
        const post = postFor(viewer, ownership, POST_CASES[postCase]);
        test(`read ${type} ${ownership} ${postCase}: ${who} → ${expected[column]}`, () => {
          assert.equal(canReadPost(viewer, type, post, NOW), expected[column]);
        });
      });
    }
  }
});

describe('scaleBackStatus (§5.2)', () => {
  const publishers = [admin, editor, author];
  const nonPublishers: Viewer[] = [contributor, subscriber, null];
  const cases: [string | undefined, string, string][] = [
    // requested, publisher gets, non-publisher gets
    [undefined, 'publish', 'draft'],
    ['', 'publish', 'draft'],
    ['publish', 'publish', 'pending'],
    ['future', 'future', 'pending'],
    ['draft', 'draft', 'draft'],
    ['pending', 'pending', 'pending'],
    ['private', 'private', 'private'],
    ['trash', 'trash', 'trash'],
  ];
  for (const [requested, forPublisher, forOthers] of cases) {
    for (const viewer of publishers) {
      test(`${viewer.role} asking ${JSON.stringify(requested)} → ${forPublisher}`, () => {
        assert.equal(scaleBackStatus(viewer, requested), forPublisher);
      });
    }
    for (const viewer of nonPublishers) {
      test(`${viewer?.role ?? 'anonymous'} asking ${JSON.stringify(requested)} → ${forOthers}`, () => {
        assert.equal(scaleBackStatus(viewer, requested), forOthers);
      });
    }
  }
});

describe('listStatusesAllowed (§10, D19)', () => {
  const ANY = ['publish', 'future', 'draft', 'pending', 'private'];
  const cases: [string[] | undefined, string[] | null, string[] | null][] = [
    // requested, for anonymous/subscribers, for contributors and up (null = refused)
    [undefined, ['publish'], ANY],
    [['publish'], ['publish'], ['publish']],
    [['any'], null, ANY],
    [['draft'], null, ['draft']],
    [['trash'], null, ['trash']],
    [['publish', 'draft'], null, ['publish', 'draft']],
    [['pending', 'publish', 'pending'], null, ['pending', 'publish']],
    [['publish', 'publish'], null, ['publish']],
    [['publish', 'bogus'], null, null],
    [['any', 'trash'], null, null],
    [['auto-draft'], null, null],
    [['inherit'], null, null],
    [['Publish'], null, null],
    [[], null, null],
  ];
  const restricted: Viewer[] = [null, subscriber];
  const editing: Viewer[] = [contributor, author, editor, admin];
  for (const [requested, forRestricted, forEditing] of cases) {
    const shown = requested ? JSON.stringify(requested) : 'nothing';
    for (const [viewers, expected] of [
      [restricted, forRestricted],
      [editing, forEditing],
    ] as const) {
      for (const viewer of viewers) {
        test(`${viewer?.role ?? 'anonymous'} asking ${shown} → ${expected ? expected.join(',') : 'refused'}`, () => {
          const result = listStatusesAllowed(viewer, requested);
          assert.deepEqual(result, expected ? { ok: true, statuses: expected } : { ok: false });
        });
      }
    }
  }

  test('the default `any` list is a fresh array each time', () => {
    const first = listStatusesAllowed(editor, undefined);
    assert.ok(first.ok);
    first.statuses.push('trash');
    assert.deepEqual(listStatusesAllowed(editor, undefined), { ok: true, statuses: ANY });
  });
});

describe('listVisibilityScope (D19)', () => {
  const expected: [Viewer, ListVisibility][] = [
    [admin, { scope: 'all' }],
    [editor, { scope: 'all' }],
    [author, { scope: 'published-or-own', authorId: author.id }],
    [contributor, { scope: 'published-or-own', authorId: contributor.id }],
    [subscriber, { scope: 'published-only' }],
    [null, { scope: 'published-only' }],
  ];
  for (const [viewer, scope] of expected) {
    test(`${viewer?.role ?? 'anonymous'} → ${scope.scope}`, () => assert.deepEqual(listVisibilityScope(viewer), scope));
  }

  // What a query builder does with the scope, applied to one row.
  function listed(scope: ListVisibility, post: PostLike): boolean {
    const published = effectiveStatus(post, NOW) === 'publish';
    if (scope.scope === 'all') return true;
    if (scope.scope === 'published-only') return published;
    return published || post.authorId === scope.authorId;
  }

  // Venues: lists and single reads follow the same rules (events differ only by refusing trashed items by id).
  for (const [who, viewer] of VIEWERS) {
    test(`${who}: a list never shows what a single read refuses, and users who can edit see all they can read`, () => {
      for (const [postCase, fields] of Object.entries(POST_CASES)) {
        for (const ownership of ['own', 'other'] as const) {
          const post = postFor(viewer, ownership, fields);
          const inList = listed(listVisibilityScope(viewer), post);
          const readable = canReadPost(viewer, 'venue', post, NOW);
          const context = `${ownership} ${postCase}`;
          if (inList) assert.ok(readable, `listed but unreadable: ${context}`);
          if (canCreatePosts(viewer)) assert.equal(inList, readable, context);
        }
      }
    });
  }
});

describe('canAccessProtected (§11, D5)', () => {
  type Options = Parameters<typeof canAccessProtected>[0];
  const base: Options = { postPassword: 'secret', suppliedPassword: undefined, contextEdit: false, canEdit: false };
  const cases: [string, Partial<Options>, boolean][] = [
    ['an unprotected item is open to everyone', { postPassword: '' }, true],
    ['an unprotected item ignores a supplied password', { postPassword: '', suppliedPassword: 'x' }, true],
    ['context=edit with edit rights unlocks', { contextEdit: true, canEdit: true }, true],
    ['context=edit without edit rights does not unlock', { contextEdit: true }, false],
    ['edit rights without context=edit do not unlock', { canEdit: true }, false],
    ['no password supplied', {}, false],
    ['the right password unlocks', { suppliedPassword: 'secret' }, true],
    [
      'the right password unlocks even without edit rights in context=edit',
      { suppliedPassword: 'secret', contextEdit: true },
      true,
    ],
    ['a wrong password', { suppliedPassword: 'secreT' }, false],
    ['a prefix of the password', { suppliedPassword: 'secre' }, false],
    ['the password plus more', { suppliedPassword: 'secret ' }, false],
    ['an empty password', { suppliedPassword: '' }, false],
    ['a non-ASCII password', { postPassword: 'pässwörd☃', suppliedPassword: 'pässwörd☃' }, true],
    ['a number equal to a numeric password', { postPassword: '1234', suppliedPassword: 1234 }, false],
    ['an array holding the password', { suppliedPassword: ['secret'] }, false],
    ['null', { suppliedPassword: null }, false],
    ['an object', { suppliedPassword: { toString: () => 'secret' } }, false],
  ];
  for (const [name, overrides, expected] of cases) {
    test(`${name} → ${expected}`, () => assert.equal(canAccessProtected({ ...base, ...overrides }), expected));
  }
});
