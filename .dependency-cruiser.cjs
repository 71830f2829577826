// Imports point down (issue 22): the store knows nothing of the handlers and workers that use it,
// mail knows nothing of pages, shared/ stays isomorphic, the browser bundle never reaches into
// server/, and no module imports itself back through others. Type-only imports count too: a type
// that travels the wrong way drags its module's meaning with it. `npm run check:imports`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'store-knows-no-callers',
      comment:
        'server/store is the bottom layer: what it needs (types, errors) lives in it or in shared/.',
      severity: 'error',
      from: { path: '^server/store/' },
      to: { path: '^server/(delivery|mail|pages|http|api|cli|console|workers|waitlist)/' },
    },
    {
      name: 'mail-knows-no-pages',
      comment:
        'An invitation is built from the store and shared/, never from the pages, the CLI or the API.',
      severity: 'error',
      from: { path: '^server/mail/' },
      to: { path: '^server/(pages|cli|api|console|waitlist|workers)/' },
    },
    {
      name: 'workers-know-no-handlers',
      comment:
        'A background worker runs operations and the store, never an HTTP handler or the CLI.',
      severity: 'error',
      from: { path: '^server/workers/' },
      to: { path: '^server/(pages|cli|api|console|http)/' },
    },
    {
      name: 'shared-is-isomorphic',
      comment: 'shared/ runs in the browser and on the server, so it imports neither.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(server|client)/' },
    },
    {
      name: 'client-knows-no-server',
      comment: 'The browser bundle must never pull in server code (or its secrets).',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^server/' },
    },
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
