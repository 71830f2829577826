// The checkout these scripts belong to: where its build (dist/) runs from and where the scripts
// leave their results (test-artifacts/).
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
