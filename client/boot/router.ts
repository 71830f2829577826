// Step 3 of the entry (client/entry.tsx): React Router and its DOM binding, in a task of its own.
import './react-dom';
import { createBrowserRouter, matchRoutes } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { nextTask } from './next-task';

await nextTask();

export { createBrowserRouter, matchRoutes, RouterProvider };
