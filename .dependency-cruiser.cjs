// @ts-check
/**
 * The import rules of docs/architecture.md "Import rules", checked by `npm run lint`
 * (dependency-cruiser over src/ and web/src/). Each rule names the arrow it forbids; the map's
 * layers, top to bottom: the entries and cli/, app.ts, routes/, http/, the services (feed/,
 * webhooks/, auth/), storage/ and the domain (book/, account/). Type-only imports count: a type
 * is a dependency too.
 */

/** What the web page may import from the server's src/: the client and the modules it bundles. */
const PAGE_MAY_IMPORT = [
  '^src/client/',
  '^src/book/schema\\.ts$',
  '^src/book/file-format\\.ts$',
  '^src/book/search\\.ts$',
  '^src/account/schema\\.ts$',
  '^src/account/roles\\.ts$',
  '^src/account/api-token-schema\\.ts$'
]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports.',
      from: {},
      to: { circular: true }
    },
    {
      name: 'cli-is-the-top',
      severity: 'error',
      comment: 'Only the two entries import the process shell (cli/): the service never calls back into it.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/start\\.ts$', '^src/book-service\\.ts$'] },
      to: { path: '^src/cli/' }
    },
    {
      name: 'app-only-from-cli',
      severity: 'error',
      comment: 'app.ts builds the Fastify app; only the shell (cli/) starts it.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/app\\.ts$'] },
      to: { path: '^src/app\\.ts$' }
    },
    {
      name: 'routes-only-from-app',
      severity: 'error',
      comment: 'The routes are registered by app.ts; nothing below them imports them.',
      from: { path: '^src/', pathNot: ['^src/routes/', '^src/app\\.ts$'] },
      to: { path: '^src/routes/' }
    },
    {
      name: 'http-not-from-below',
      severity: 'error',
      comment:
        'http/ (the pipeline, errors, the API document, the auth hook) serves routes/, app.ts and the shell; ' +
        'services, storage, the domain and the client never import it.',
      from: { path: '^src/(feed|webhooks|auth|storage|book|account|client)/|^src/config\\.ts$' },
      to: { path: '^src/http/' }
    },
    {
      name: 'http-not-to-services',
      severity: 'error',
      comment:
        'http/ reads the change feed and the dispatcher only through the interfaces it defines (metrics.ts); ' +
        'it may use auth/ (the auth hook), the domain, storage contracts and config.',
      from: { path: '^src/http/' },
      to: { path: '^src/(feed|webhooks)/' }
    },
    {
      name: 'services-not-to-app',
      severity: 'error',
      comment: 'A service (feed/, webhooks/, auth/) uses the domain, storage and other services, never the layers above.',
      from: { path: '^src/(feed|webhooks|auth)/' },
      to: { path: '^src/(routes|cli)/|^src/app\\.ts$' }
    },
    {
      name: 'storage-below-services',
      severity: 'error',
      comment: 'storage/ imports only the domain, config and itself.',
      from: { path: '^src/storage/' },
      to: { path: '^src/(feed|webhooks|auth|client|routes|http|cli)/|^src/app\\.ts$' }
    },
    {
      name: 'storage-internals-stay-inside',
      severity: 'error',
      comment:
        'Outside storage/, only storage/open.ts, files.ts, retention.ts and contracts/ are imported: ' +
        'the shared SQL (sql/), the migrations (schema/) and the engines are storage\'s own.',
      from: { path: '^src/', pathNot: '^src/storage/' },
      to: { path: '^src/storage/(sql|schema|sqlite|postgres)/' }
    },
    {
      name: 'engines-only-through-open',
      severity: 'error',
      comment: 'An engine (sqlite/, postgres/) is reached only through storage/open.ts, which picks it from DATABASE_URL.',
      from: { path: '^src/storage/', pathNot: ['^src/storage/open\\.ts$', '^src/storage/(sqlite|postgres)/'] },
      to: { path: '^src/storage/(sqlite|postgres)/' }
    },
    {
      name: 'engines-apart',
      severity: 'error',
      comment: 'The two engines share what they share through sql/, never each other.',
      from: { path: '^src/storage/(sqlite|postgres)/' },
      to: { path: '^src/storage/(sqlite|postgres)/', pathNot: '^src/storage/$1/' }
    },
    {
      name: 'contracts-are-interfaces',
      severity: 'error',
      comment: 'storage/contracts/ (what the service uses) depends on nothing of their implementation: only the domain and each other.',
      from: { path: '^src/storage/contracts/' },
      to: { path: '^src/', pathNot: ['^src/storage/contracts/', '^src/(book|account)/'] }
    },
    {
      name: 'domain-is-a-leaf',
      severity: 'error',
      comment: 'book/ and account/ (the domain: schemas, rules, formats) import nothing else of the service.',
      from: { path: '^src/(book|account)/' },
      to: { path: '^src/', pathNot: '^src/(book|account)/' }
    },
    {
      name: 'client-imports-only-types',
      severity: 'error',
      comment: 'The typed client (the package entry, bundled by the page) takes only types from the rest of src/.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/', dependencyTypesNot: ['type-only'] }
    },
    {
      name: 'client-without-node',
      severity: 'error',
      comment: 'The client runs in browsers too (the page bundles it): no node: module.',
      from: { path: '^src/client/' },
      to: { dependencyTypes: ['core'] }
    },
    {
      name: 'page-imports-only-what-it-bundles',
      severity: 'error',
      comment:
        'The web page (web/src/) imports from the server\'s src/ only the client and the modules it bundles: ' +
        'the book, account and API token schemas, the role rules, the book file formats and the search rules.',
      from: { path: '^web/src/' },
      to: { path: '^src/', pathNot: PAGE_MAY_IMPORT }
    },
    {
      name: 'page-ui-imports-no-feature',
      severity: 'error',
      comment: 'web/src/ui/ (the page\'s base components) uses only itself, the strings and the client; features build on it.',
      from: { path: '^web/src/ui/' },
      to: { path: '^web/src/', pathNot: ['^web/src/ui/', '^web/src/strings/'] }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] }
  }
}
