import { callFingerprint } from './workflow-receipts.js';

describe('callFingerprint: what tells a repeat of a keyed call from another call', () => {
  it('is the same for the same tool and arguments, whatever the order of their keys', () => {
    const first = callFingerprint('payment.refund', { paymentId: 'p-1', amount: 20, meta: { b: 1, a: [1, { y: 2, x: 1 }] } });
    const again = callFingerprint('payment.refund', { meta: { a: [1, { x: 1, y: 2 }], b: 1 }, amount: 20, paymentId: 'p-1' });
    expect(again).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for another tool, another value, an added argument or another order of a list', () => {
    const first = callFingerprint('payment.refund', { paymentId: 'p-1', amount: 20 });
    expect(callFingerprint('payment.void', { paymentId: 'p-1', amount: 20 })).not.toBe(first);
    expect(callFingerprint('payment.refund', { paymentId: 'p-1', amount: 30 })).not.toBe(first);
    expect(callFingerprint('payment.refund', { paymentId: 'p-1', amount: 20, note: null })).not.toBe(first);
    expect(callFingerprint('payment.refund', { paymentId: 'p-1', amount: '20' })).not.toBe(first);
    expect(callFingerprint('a', { list: [1, 2] })).not.toBe(callFingerprint('a', { list: [2, 1] }));
  });
});
