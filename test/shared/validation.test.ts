import { EMAIL_PATTERN, validateActivation, validateWaitlist } from '../../shared/validation';

describe('validation rules (docs/product.md §5)', () => {
  it('requires the email with the exact message', () => {
    expect(validateWaitlist({ email: '', description: 'me' })).toEqual({
      email: 'Email address is required',
    });
    expect(validateActivation({ key: 'k' })).toEqual({ email: 'Email address is required' });
  });

  it('flags an email that does not match the pattern, with no message', () => {
    for (const email of [
      'plainaddress',
      'a@b',
      'a b@c.de',
      'a@b.co ',
      ' a@b.co',
      'a@@b.co',
      'a@b.co\n',
    ]) {
      expect(validateWaitlist({ email, description: 'x' })).toEqual({ email: '' });
    }
  });

  it('accepts ordinary addresses, unicode included', () => {
    for (const email of ['a@b.co', 'first.last+tag@sub.example.org', 'zoë@exämple.de']) {
      expect(EMAIL_PATTERN.test(email)).toBe(true);
      expect(validateWaitlist({ email, description: 'x' })).toEqual({});
    }
  });

  it('rejects huge or pathological input in linear time (no ReDoS)', () => {
    const started = Date.now();
    for (const email of [
      `a@${'.'.repeat(30_000)}@`,
      `a@${'b.'.repeat(15_000)}`,
      `${'a'.repeat(30_000)}@b`,
    ]) {
      expect(validateWaitlist({ email, description: 'x' })).toEqual({ email: '' });
      expect(EMAIL_PATTERN.test(email.slice(0, 5_000))).toBe(false);
    }
    // A few milliseconds in all: a backtracking pattern takes seconds or more on these, so a
    // bound a thousand times the usual time tells them apart on however crowded a machine.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('requires the description on the waitlist and the key on activation', () => {
    expect(validateWaitlist({ email: 'a@b.co', description: '' })).toEqual({
      description: 'Required',
    });
    expect(validateActivation({ email: 'a@b.co', key: '' })).toEqual({ key: 'Required' });
  });
});
