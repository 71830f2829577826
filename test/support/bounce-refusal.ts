// What a provider's endpoint refused a request with, for the bounce modules' tests: the read's
// Refused, or a failure of the test when the read was accepted or failed another way.
import { Refused } from '../../server/bounces/notices';

export async function refusalOf(reading: Promise<unknown>): Promise<Refused> {
  const error: unknown = await reading.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Refused);
  return error as Refused;
}
