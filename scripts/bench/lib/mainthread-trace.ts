// Reading a Chromium trace (the JSON of CDP Tracing) for bench:mainthread: the long tasks on the
// main thread of the renderer that loaded one page, from its navigation start until it is quiet.
// Everything comes from the trace, so the page runs no script of the bench's.

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  cat?: string;
  args?: {
    name?: string;
    frame?: string;
    data?: { documentLoaderURL?: string; isLoadingMainFrame?: boolean };
  };
}

/**
 * Tracing categories: the top-level tasks and the marks of blink.user_timing (navigationStart,
 * commitNavigationEnd, loadEventEnd) are all the figures need. Every other category costs the
 * page time of its own: devtools.timeline records a JavaScript stack for each resource request
 * and timer (a preload scan of the landing page took 38 ms with it, 5 without, under 4× CPU
 * slowdown). `detail` adds what names a task's parts.
 */
export function traceCategories(detail: boolean): string[] {
  return [
    'toplevel',
    'blink.user_timing',
    ...(detail ? ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'loading'] : []),
  ];
}

/** Names of a top-level task on a thread, as Chromium versions have called it. */
const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);
/** A long task: over 50 ms, as the Long Tasks API and Total Blocking Time count them. */
export const LONG_TASK_MS = 50;

/** When a page is quiet: this long after both its load event and the end of its last long task… */
export const QUIET_MS = 3_000;
/** …or this long after navigation start, whichever comes first. */
export const QUIET_CAP_MS = 20_000;

export interface MainThreadLoad {
  /** The quiet point, ms after navigation start. */
  quietMs: number;
  /** The page was still not quiet at QUIET_CAP_MS. */
  capped: boolean;
  /** Sum of the long tasks' durations, ms. */
  longMs: number;
  count: number;
  longestMs: number;
  /**
   * The part of longMs that is the navigation's commit: the task in which the new document is
   * made (its window, its V8 context, the start of parsing), 0 when that task was not long. It is
   * the browser's work more than the page's: a page of one line with the site's headers has it too
   * (floor-page.ts), so the report shows the sum without it beside the sum.
   */
  commitMs: number;
  /** Each long task: when it started after navigation, how long it took, and its largest parts. */
  tasks: { atMs: number; ms: number; commit: boolean; parts: string }[];
}

/** Top-level tasks of one thread, outermost only (a task nested in another is part of it). */
function topLevelTasks(events: TraceEvent[], pid: number, tid: number): TraceEvent[] {
  const tasks = events
    .filter(
      (e) =>
        e.ph === 'X' &&
        e.pid === pid &&
        e.tid === tid &&
        TASK_NAMES.has(e.name) &&
        typeof e.dur === 'number',
    )
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const outermost: TraceEvent[] = [];
  let end = -Infinity;
  for (const task of tasks) {
    if (task.ts < end) continue;
    outermost.push(task);
    end = task.ts + task.dur!;
  }
  return outermost;
}

/**
 * The renderer main thread (thread_name `CrRendererMain`) of the process whose main frame loaded
 * a document from `origin`, found by that document's `navigationStart` mark, and the long tasks
 * on it from the mark until the page is quiet: QUIET_MS after both the frame's load event
 * (`loadEventEnd`) and the end of the last long task, at most QUIET_CAP_MS after the mark. Not
 * the busiest renderer: the browser's own WebUI renderers run more tasks than a page.
 * Returns why not when the trace cannot tell: it holds no such mark (the renderer's first events
 * were not recorded, so its first long tasks may be missing too), or no load event, or it ends
 * before the quiet point (`tooShort`). Then the load must be measured again, with a longer trace
 * in the last case.
 */
export function longTasksOfLoad(
  events: TraceEvent[],
  origin: string,
): MainThreadLoad | { retry: string; tooShort?: true } {
  const navigation = events
    .filter(
      (e) =>
        e.name === 'navigationStart' &&
        e.args?.data?.isLoadingMainFrame &&
        e.args.data.documentLoaderURL?.startsWith(origin),
    )
    .sort((a, b) => a.ts - b.ts)
    .at(-1);
  const thread =
    navigation &&
    events.find(
      (e) =>
        e.ph === 'M' &&
        e.name === 'thread_name' &&
        e.args?.name === 'CrRendererMain' &&
        e.pid === navigation.pid,
    );
  /** The first mark of this name in the navigation's frame, from its start on. */
  const mark = (name: string) =>
    navigation &&
    events.find(
      (e) => e.name === name && e.args?.frame === navigation.args?.frame && e.ts >= navigation.ts,
    );
  const load = mark('loadEventEnd');
  // The commit's own mark is written inside the task that commits (blink.user_timing).
  const committed = mark('commitNavigationEnd');
  if (!navigation || !thread) return { retry: "the trace lacks the page's navigation start" };
  if (!load) return { retry: "the trace lacks the page's load event" };
  const start = navigation.ts;
  const cap = start + QUIET_CAP_MS * 1000;
  const traceEnd = events.reduce((end, e) => Math.max(end, e.ts + (e.dur ?? 0)), 0);
  const onThread = events.filter(
    (e) =>
      e.ph === 'X' && e.pid === thread.pid && e.tid === thread.tid && typeof e.dur === 'number',
  );
  const long = topLevelTasks(events, thread.pid, thread.tid).filter(
    (t) => t.ts >= start && t.dur! > LONG_TASK_MS * 1000,
  );
  // Each long task that starts before the quiet point moves it on.
  let quiet = load.ts + QUIET_MS * 1000;
  const tasks: TraceEvent[] = [];
  for (const task of long) {
    if (task.ts >= Math.min(quiet, cap)) break;
    tasks.push(task);
    quiet = Math.max(quiet, task.ts + task.dur! + QUIET_MS * 1000);
  }
  const capped = quiet > cap;
  quiet = Math.min(quiet, cap);
  if (traceEnd < quiet)
    return {
      retry: `not quiet when the trace ended, ${((traceEnd - start) / 1e6).toFixed(1)} s after navigation`,
      tooShort: true,
    };
  const ms = tasks.map((t) => t.dur! / 1000);
  const isCommit = (t: TraceEvent) =>
    committed !== undefined && t.ts <= committed.ts && committed.ts <= t.ts + t.dur!;
  return {
    quietMs: (quiet - start) / 1000,
    capped,
    longMs: ms.reduce((sum, m) => sum + m, 0),
    count: ms.length,
    longestMs: ms.length ? Math.max(...ms) : 0,
    commitMs: tasks.filter(isCommit).reduce((sum, t) => sum + t.dur! / 1000, 0),
    tasks: tasks.map((t) => ({
      atMs: (t.ts - start) / 1000,
      ms: t.dur! / 1000,
      commit: isCommit(t),
      parts: largestParts(onThread, t),
    })),
  };
}

/** The three largest events inside a task (not the task's own wrappers), as "name ms" text. */
function largestParts(onThread: TraceEvent[], task: TraceEvent): string {
  return onThread
    .filter(
      (e) =>
        e !== task &&
        !TASK_NAMES.has(e.name) &&
        e.ts >= task.ts &&
        e.ts + e.dur! <= task.ts + task.dur! &&
        e.dur! > 2_000,
    )
    .sort((a, b) => b.dur! - a.dur!)
    .slice(0, 3)
    .map((e) => `${e.name} ${(e.dur! / 1000).toFixed(0)}`)
    .join(', ');
}
