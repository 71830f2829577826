// Every hash a test makes costs argon2id's least (8 KiB, the 8 KiB a lane that RFC 9106 sets as
// the floor; one pass, one lane): production's 64 MiB and 3 passes took most of the time of the
// console's tests. The hashes are still PHC strings naming their cost, so verify reads either.
// Production's cost is checked where it runs: the built CLI's `admin add` (cli/admins.test.ts)
// and the login timing test (console/login.test.ts). A setup file of the Jest projects.
import { setPasswordCost, type PasswordCost } from '../../server/console/password';

export const TEST_COST: PasswordCost = { memoryCost: 8, timeCost: 1, parallelism: 1 };

setPasswordCost(TEST_COST);
