// The pause between the entry steps (client/entry.tsx): a new task, so the browser can run input,
// rendering and anything else it has queued before the next module is evaluated.
export const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
