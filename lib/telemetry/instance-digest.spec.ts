import { instanceDigest } from './instance-digest.js';

describe('instanceDigest', () => {
  const key = 'k'.repeat(32);

  it('is 128 bits of hex, the same for one store key and key', () => {
    const handle = 'Vq3xJ0c9yXbH2lQwE5rT7a';
    const digest = instanceDigest(key, `payment:${handle}`);
    expect(digest).toMatch(/^[0-9a-f]{32}$/);
    expect(instanceDigest(key, `payment:${handle}`)).toBe(digest);
  });

  it('differs by instance and by key', () => {
    expect(instanceDigest(key, 'payment:a')).not.toBe(instanceDigest(key, 'payment:b'));
    expect(instanceDigest(key, 'payment:a')).not.toBe(instanceDigest('j'.repeat(32), 'payment:a'));
  });
});
