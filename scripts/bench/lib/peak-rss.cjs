// Preloaded into a process the mail benchmark measures (node --require): on exit it reports the
// process's peak resident memory, which only the process itself can read once it is over.
process.on('exit', () => {
  process.stderr.write(`peak-rss-kib ${process.resourceUsage().maxRSS}\n`);
});
