// bench:mainthread reads the long tasks of one load, and when the page went quiet, from a Chromium
// trace alone (scripts/bench/lib/mainthread-trace.ts). Traces here are built the way Chromium
// writes them: microsecond timestamps, a navigationStart and a loadEventEnd mark per frame, thread
// names as metadata, and top-level tasks that may hold nested ones.
import {
  longTasksOfLoad,
  QUIET_CAP_MS,
  QUIET_MS,
  type TraceEvent,
} from '../../scripts/bench/lib/mainthread-trace';

const ORIGIN = 'http://127.0.0.1:4000';
const PAGE = { pid: 20, tid: 1 };
const NAV = 1_000_000_000;
const ms = (value: number) => value * 1000;

/**
 * A trace of one load: the page's marks and thread, the given top-level tasks, ending at `endMs`.
 */
function trace(
  tasks: [atMs: number, durMs: number][],
  { loadMs = 400, endMs = 8_000, extra = [] as TraceEvent[] } = {},
): TraceEvent[] {
  const frame = 'F1';
  return [
    { name: 'thread_name', ph: 'M', ...PAGE, ts: 0, args: { name: 'CrRendererMain' } },
    { name: 'thread_name', ph: 'M', pid: 30, tid: 1, ts: 0, args: { name: 'CrRendererMain' } },
    {
      name: 'navigationStart',
      ph: 'R',
      ...PAGE,
      ts: NAV,
      args: { frame, data: { documentLoaderURL: `${ORIGIN}/`, isLoadingMainFrame: true } },
    },
    ...(loadMs >= 0
      ? [{ name: 'loadEventEnd', ph: 'R', ...PAGE, ts: NAV + ms(loadMs), args: { frame } }]
      : []),
    ...tasks.map(([at, dur]) => ({
      name: 'ThreadControllerImpl::RunTask',
      ph: 'X',
      ...PAGE,
      ts: NAV + ms(at),
      dur: ms(dur),
    })),
    ...extra,
    { name: 'RunTask', ph: 'X', pid: 30, tid: 1, ts: NAV + ms(endMs), dur: 10 },
  ];
}

describe('longTasksOfLoad', () => {
  it('sums the tasks over 50 ms on the page main thread, and only the outermost of nested ones', () => {
    const nested: TraceEvent = {
      name: 'RunTask',
      ph: 'X',
      ...PAGE,
      ts: NAV + ms(305),
      dur: ms(60),
    };
    const other: TraceEvent = {
      name: 'RunTask',
      ph: 'X',
      pid: 30,
      tid: 1,
      ts: NAV + ms(100),
      dur: ms(400),
    };
    const load = longTasksOfLoad(
      trace(
        [
          [30, 62],
          [150, 49],
          [300, 80],
        ],
        { extra: [nested, other] },
      ),
      ORIGIN,
    );
    expect(load).toMatchObject({ count: 2, longMs: 142, longestMs: 80, capped: false });
    expect('tasks' in load && load.tasks.map((t) => t.atMs)).toEqual([30, 300]);
  });

  it("tells the navigation's commit, the long task holding the frame's commitNavigationEnd mark, from the page's own", () => {
    const commitMark = (atMs: number, frame = 'F1'): TraceEvent => ({
      name: 'commitNavigationEnd',
      ph: 'R',
      ...PAGE,
      ts: NAV + ms(atMs),
      args: { frame },
    });
    const tasks: [number, number][] = [
      [20, 58],
      [120, 70],
    ];
    const load = longTasksOfLoad(trace(tasks, { extra: [commitMark(70)] }), ORIGIN);
    expect(load).toMatchObject({ longMs: 128, commitMs: 58 });
    expect('tasks' in load && load.tasks.map((t) => t.commit)).toEqual([true, false]);
    // A commit under 50 ms is no long task; another frame's mark is not this page's commit.
    const short = longTasksOfLoad(
      trace([[20, 40], ...tasks.slice(1)], { extra: [commitMark(30)] }),
      ORIGIN,
    );
    expect(short).toMatchObject({ longMs: 70, commitMs: 0 });
    expect(longTasksOfLoad(trace(tasks, { extra: [commitMark(70, 'F2')] }), ORIGIN)).toMatchObject({
      longMs: 128,
      commitMs: 0,
    });
  });

  it('is quiet 3 s after the load event and the last long task, and counts nothing after that', () => {
    // The load at 400 ms; a long task at 1 s moves the quiet point to 4.06 s; the one at 5 s is
    // later.
    const load = longTasksOfLoad(
      trace([
        [1_000, 60],
        [5_000, 90],
      ]),
      ORIGIN,
    );
    expect(load).toMatchObject({ count: 1, longMs: 60, quietMs: 1_060 + QUIET_MS });
  });

  it('stops at the cap when long tasks never stop', () => {
    const busy = Array.from({ length: 30 }, (_, i): [number, number] => [i * 1_000, 60]);
    const load = longTasksOfLoad(trace(busy, { endMs: 30_000 }), ORIGIN);
    expect(load).toMatchObject({
      capped: true,
      quietMs: QUIET_CAP_MS,
      count: QUIET_CAP_MS / 1_000,
    });
  });

  it('asks for a longer trace when it ends before the quiet point', () => {
    expect(longTasksOfLoad(trace([[2_000, 70]], { endMs: 4_000 }), ORIGIN)).toMatchObject({
      tooShort: true,
    });
  });

  it('asks for the load again when the trace lacks the navigation or the load event', () => {
    expect(longTasksOfLoad(trace([[30, 60]]), 'http://127.0.0.1:5000')).toEqual({
      retry: "the trace lacks the page's navigation start",
    });
    expect(longTasksOfLoad(trace([[30, 60]], { loadMs: -1 }), ORIGIN)).toEqual({
      retry: "the trace lacks the page's load event",
    });
  });
});
