// Step 2 of the entry (client/entry.tsx): React DOM, the largest module, in a task of its own.
import './react';
import { hydrateRoot } from 'react-dom/client';
import { nextTask } from './next-task';

await nextTask();

export { hydrateRoot };
