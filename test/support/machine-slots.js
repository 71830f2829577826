// How many test files run at once on this machine, across every test run on it. Most files spend
// their time waiting on other processes (servers, Chromium, PostgreSQL), so two files per core
// keep the cores busy. A file that times what a server does (a shell streamed in time, an exit
// within 5 s) says so in its docblock, `@jest-environment-options {"timed": true}`, and then
// runs beside at most one other file per core minus one: the crowd it sees is no bigger than
// with one file per core. A second clone's `npm test` beside this one shares the same slots.
//
// Each waiting file writes a ticket, a file named after its arrival time, PID and weight, in a
// folder every run shares. Tickets are served in arrival order: a file runs once the weights of
// the live tickets up to its own fit the machine. A ticket of a process that ended (a crash, a
// kill) no longer counts. Plain CommonJS: the test environments load it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const FOLDER = path.join(os.tmpdir(), 'orgnote-test-slots');
const CORES = Math.max(2, os.availableParallelism());
/** Load units the machine takes at once: a plain file is one, two per core. */
const CAPACITY = 2 * CORES;
/** A timed file leaves room for one plain file per core minus one. */
const TIMED_WEIGHT = CAPACITY - (CORES - 1);
const POLL_MS = 50;

/** Waits until this file may run; resolves with a release function. */
async function acquireSlot({ timed = false } = {}) {
  fs.mkdirSync(FOLDER, { recursive: true });
  const weight = timed ? TIMED_WEIGHT : 1;
  // Arrival order first (zero-padded for a plain sort), then the PID to break ties.
  const arrival = String(Date.now()).padStart(15, '0');
  const ticket = `${arrival}-${process.pid}-${Math.random().toString(16).slice(2, 8)}-${weight}`;
  const file = path.join(FOLDER, ticket);
  fs.writeFileSync(file, '');
  const release = () => fs.rmSync(file, { force: true });
  try {
    while (!mayRun(ticket)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  } catch (err) {
    release();
    throw err;
  }
  return release;
}

/** Whether the live tickets up to and including this one fit the machine. */
function mayRun(ticket) {
  let load = 0;
  for (const name of liveTickets()) {
    load += Number(name.split('-').at(-1)) || 1;
    if (name === ticket) return load <= CAPACITY;
    if (load >= CAPACITY) return false;
  }
  return false;
}

function liveTickets() {
  return fs
    .readdirSync(FOLDER)
    .filter((name) => {
      if (isAlive(Number(name.split('-')[1]))) return true;
      fs.rmSync(path.join(FOLDER, name), { force: true }); // its process ended without releasing
      return false;
    })
    .sort();
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return err.code === 'EPERM';
  }
}

module.exports = { acquireSlot, CAPACITY };
