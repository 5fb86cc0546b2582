import { paymentMachine, invoiceMachine } from '../machines/billing-machines.fixture.js';
import { consoleInstanceId, consoleInstancePath, consoleStoreKey } from './console-instance-ref.js';

describe('console instance references', () => {
  it.each([
    [paymentMachine, 'payment:Fc6Ddxi9Rl74wfB-8bzY8g', 'Fc6Ddxi9Rl74wfB-8bzY8g'],
    [invoiceMachine, 'invoice:session:a279c80d-0884-409a-b012-7e1165464c49', 'a279c80d-0884-409a-b012-7e1165464c49'],
    [invoiceMachine, 'invoice:attachment:local', 'attachment:local'],
    [invoiceMachine, 'invoice:principal:alice@example.com', 'principal:alice@example.com'],
  ])('%# names %s by its handle, session id, or scope:id, and back', (machine, key, id) => {
    expect(consoleInstanceId(key)).toBe(id);
    expect(consoleStoreKey(machine, id)).toBe(key);
  });

  it('percent-encodes the parts of an instance URL, a lone surrogate as U+FFFD instead of throwing', () => {
    expect(consoleInstancePath('/workflows', 'invoice', 'invoice:principal:a/b c')).toBe('/workflows/invoice/principal%3Aa%2Fb%20c');
    expect(consoleInstancePath('/workflows', 'invoice', 'invoice:session:x\uD800y')).toBe('/workflows/invoice/x%EF%BF%BDy');
  });
});
