// Reading a Chromium trace (the JSON of CDP Tracing) for bench:mainthread: the long tasks on the
// main thread of the renderer that loaded one page, from its navigation start to a given point.

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  cat?: string;
  args?: { name?: string; data?: { documentLoaderURL?: string; isLoadingMainFrame?: boolean } };
}

/** Tracing categories the reader needs: top-level tasks, and navigationStart (blink.user_timing). */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing', 'loading'];

/** Names of a top-level task on a thread, as Chromium versions have called it. */
const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);
/** A long task: over 50 ms, as the Long Tasks API and Total Blocking Time count them. */
export const LONG_TASK_MS = 50;

export interface MainThreadLoad {
  /** Sum of the long tasks' durations, ms. */
  longMs: number;
  count: number;
  longestMs: number;
  /** Each long task: when it started after navigation, how long it took, and its largest parts. */
  tasks: { atMs: number; ms: number; parts: string }[];
}

/** Top-level tasks of one thread, outermost only (a task nested in another is part of it). */
function topLevelTasks(events: TraceEvent[], pid: number, tid: number): TraceEvent[] {
  const tasks = events
    .filter((e) => e.ph === 'X' && e.pid === pid && e.tid === tid && TASK_NAMES.has(e.name) && typeof e.dur === 'number')
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
 * that start on it between the mark and `untilMs` after it. Not the busiest renderer: the
 * browser's own WebUI renderers (the omnibox popup of each new window) run more tasks than a page.
 * Returns undefined when the trace holds no such mark, as happens when the renderer's first events
 * were not recorded: then its first long tasks may be missing too, and the load must be measured again.
 */
export function longTasksOfLoad(events: TraceEvent[], origin: string, untilMs: number): MainThreadLoad | undefined {
  const navigation = events
    .filter((e) => e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame && e.args.data.documentLoaderURL?.startsWith(origin))
    .sort((a, b) => a.ts - b.ts)
    .at(-1);
  const thread = navigation && events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === navigation.pid);
  if (!navigation || !thread) return undefined;
  const start = navigation.ts;
  const end = start + untilMs * 1000;
  const onThread = events.filter((e) => e.ph === 'X' && e.pid === thread.pid && e.tid === thread.tid && typeof e.dur === 'number');
  const tasks = topLevelTasks(events, thread.pid, thread.tid).filter((t) => t.ts >= start && t.ts < end && t.dur! > LONG_TASK_MS * 1000);
  const long = tasks.map((t) => t.dur! / 1000);
  return {
    longMs: long.reduce((sum, ms) => sum + ms, 0),
    count: long.length,
    longestMs: long.length ? Math.max(...long) : 0,
    tasks: tasks.map((t) => ({ atMs: (t.ts - start) / 1000, ms: t.dur! / 1000, parts: largestParts(onThread, t) })),
  };
}

/** The three largest events inside a task (not the task's own wrappers), as "name ms" text. */
function largestParts(onThread: TraceEvent[], task: TraceEvent): string {
  return onThread
    .filter((e) => e !== task && !TASK_NAMES.has(e.name) && e.ts >= task.ts && e.ts + e.dur! <= task.ts + task.dur! && e.dur! > 2_000)
    .sort((a, b) => b.dur! - a.dur!)
    .slice(0, 3)
    .map((e) => `${e.name} ${(e.dur! / 1000).toFixed(0)}`)
    .join(', ');
}
