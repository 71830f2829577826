// Preloaded into the site the bench measures (node --expose-gc --require): on SIGUSR2 it runs a
// full garbage collection and says so on stdout, so the bench reads the resident memory the site
// keeps rather than what it has not collected yet (memory.ts). The collection is V8's last-resort
// one, which also hands back to the system the heap pages V8 otherwise keeps for reuse: after a
// spike of proxied signups, a plain gc() left 243 MB resident where this leaves 130 MB, the heap
// itself 28 MB either way (docs/benchmarks.md, "Memory").
process.on('SIGUSR2', () => {
  global.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  process.stdout.write('gc done\n');
});
