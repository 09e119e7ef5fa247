// The layers, checked on every CI run (npm run check:layers). Imports point down only:
//
//   surfaces  src/api (the JSON API: routes, request arguments, response schemas), src/pages (HTML), src/ical (feeds
//             and the .ics import), src/cli
//   plugins   src/plugins (Fastify plugins) over src/http (the HTTP edge's helpers)
//   core      src/core: services, repositories, serializers, the change log, sync, webhooks, users, idempotency,
//             background jobs; functions of (transaction, actor, input) that never see a request
//   domain    src/domain: pure rules, no I/O
//   store     src/store: Kysely, migrations, transactions; the two databases only behind store/dialect.ts
const CORE = '^src/core/';
const SURFACES_AND_EDGE = '^src/(api|http|plugins|pages|cli|ical)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports has no bottom: each file in it can only be understood, tested and moved with the others.',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure rules: it imports nothing of the service but domain/ itself and the Config type.',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { path: '^src/(?!domain|config[.]ts)' },
    },
    {
      name: 'store-is-the-floor',
      comment: 'store/ knows tables, not what the service does with them.',
      severity: 'error',
      from: { path: '^src/store' },
      to: { path: '^src/(?!store|domain|config[.]ts)' },
    },
    {
      name: 'core-below-surfaces',
      comment: 'The core runs without an HTTP request: it never imports the HTTP edge, the plugins or a surface.',
      severity: 'error',
      from: { path: CORE },
      to: { path: SURFACES_AND_EDGE },
    },
    {
      name: 'http-below-plugins',
      comment: 'The HTTP helpers sit below the plugins and the surfaces that use them.',
      severity: 'error',
      from: { path: '^src/http' },
      to: { path: '^src/(plugins|pages|cli)/' },
    },
    {
      name: 'dialects-only-in-store',
      comment: 'What differs between SQLite and PostgreSQL is StoreDialect\'s business alone.',
      severity: 'error',
      from: { pathNot: '^src/store' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API dependency-cruiser can use yet: swc reads the sources.
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
