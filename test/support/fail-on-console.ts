// Any console.error / console.warn during a test fails it: React reports hydration mismatches,
// act() misuse and bad props there, and each of those is a bug.
import { format } from 'node:util';

const calls: string[] = [];
const original = { error: console.error, warn: console.warn };

beforeEach(() => {
  calls.length = 0;
  console.error = (...args: unknown[]) => {
    calls.push(`console.error: ${format(...args)}`);
  };
  console.warn = (...args: unknown[]) => {
    calls.push(`console.warn: ${format(...args)}`);
  };
});

afterEach(() => {
  console.error = original.error;
  console.warn = original.warn;
  if (calls.length > 0) {
    const message = calls.join('\n');
    calls.length = 0;
    throw new Error(`The test wrote to the console:\n${message}`);
  }
});
