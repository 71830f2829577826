// Imported first by each entry, before any module an older Node would stumble on: run outside npm
// (`node dist/server/index.js`, the CLI) on the machine's own Node, the site says in one line what
// it needs instead of dying with a stack trace. npm's scripts run the project's own Node 24 (the
// `node` package in devDependencies puts it first on their PATH).
const NEEDED_MAJOR = 24;

const found = process.versions.node;
if (Number(found.split('.')[0]) < NEEDED_MAJOR) {
  process.stderr.write(
    `OrgNote's site needs Node ${NEEDED_MAJOR}; this is Node ${found}. ` +
      "`npm start` (and `npm run waitlist -- <command>`) run it with the project's own Node " +
      `${NEEDED_MAJOR}, which \`npm install\` brings.\n`,
  );
  process.exit(1);
}

export {};
