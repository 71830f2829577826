// Step 1 of the entry (client/entry.tsx): React is evaluated, then the thread goes back to the
// browser. Top-level await makes the pause part of module evaluation, so the steps run in this
// order in one bundle, each in a task of its own.
import { startTransition } from 'react';
import { nextTask } from './next-task';

await nextTask();

export { startTransition };
