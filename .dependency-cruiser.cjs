// Imports point down: the store knows nothing of the handlers and workers that use it, mail
// knows nothing of pages, shared/ stays isomorphic, the browser bundle never reaches into server/,
// scripts/ never reaches into test/, and no module imports itself back through others. Type-only imports count too: a type that
// travels the wrong way drags its module's meaning with it. `npm run check:imports`.

/** No module matching `from` may import one matching `to` (paths are regular expressions). */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      'store-knows-no-callers',
      'server/store is the bottom layer: what it needs (types, errors) lives in it or in shared/.',
      '^server/store/',
      '^server/(delivery|mail|pages|http|api|cli|console|workers|waitlist)/',
    ),
    forbid(
      'mail-knows-no-pages',
      'An invitation is built from the store and shared/, never from the pages, the CLI or the API.',
      '^server/mail/',
      '^server/(pages|cli|api|console|waitlist|workers)/',
    ),
    forbid(
      'workers-know-no-handlers',
      'A background worker runs operations and the store, never an HTTP handler or the CLI.',
      '^server/workers/',
      '^server/(pages|cli|api|console|http)/',
    ),
    forbid(
      'shared-is-isomorphic',
      'shared/ runs in the browser and on the server, so it imports neither.',
      '^shared/',
      '^(server|client)/',
    ),
    forbid(
      'client-knows-no-server',
      'The browser bundle must never pull in server code (or its secrets).',
      '^client/',
      '^server/',
    ),
    forbid(
      'scripts-know-no-tests',
      'Tests may use scripts/lib (the launcher and its kin); scripts never import test/: what ' +
        'both need lives in scripts/lib.',
      '^scripts/',
      '^test/',
    ),
    {
      name: 'no-circular',
      comment: 'A cycle means two modules are one idea, or one of them points the wrong way.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.mts', '.js', '.cjs', '.mjs', '.json'] },
  },
};
