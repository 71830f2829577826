// At most one test file per core runs at a time on this machine, across every test run on it
//: a second clone's `npm test` beside this one would otherwise put four
// workers, each with its servers and browsers, on two cores, and the tests that time what a
// server does (a shell streamed before 400 ms, an exit within 5 s) would time the crowd instead.
// A single run never waits here (Jest has one worker per core); two runs beside each other share
// the cores as one run would use them. Plain CommonJS: the test environments load it.
//
// Each waiting file writes a ticket, a file named after its arrival time and PID, in a folder
// every run shares; the files whose tickets are among the first N of live processes run. A ticket
// of a process that ended (a crash, a kill) no longer counts.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const FOLDER = path.join(os.tmpdir(), 'orgnote-test-slots');
const SLOTS = Math.max(2, os.availableParallelism());
const POLL_MS = 50;

/** Waits until this file may run; resolves with a release function. */
async function acquireSlot() {
  fs.mkdirSync(FOLDER, { recursive: true });
  // Arrival order first (zero-padded for a plain sort), then the PID to break ties.
  const ticket = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
  const file = path.join(FOLDER, ticket);
  fs.writeFileSync(file, '');
  const release = () => fs.rmSync(file, { force: true });
  try {
    while (!liveTickets().slice(0, SLOTS).includes(ticket))
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  } catch (err) {
    release();
    throw err;
  }
  return release;
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

module.exports = { acquireSlot };
