import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// findBy… and waitFor return as soon as what they wait for is there; the default 1 s was too
// short for a lazily loaded route while a full CI run kept both cores busy.
configure({ asyncUtilTimeout: 5_000 });
