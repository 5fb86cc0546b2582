import { isRequester, newRequestId, personOf, requesterOf, waitingRequestOf } from './approval-request.js';
import type { WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';

const asked = (extra: Partial<WorkflowWaitingRequest> = {}): Omit<WorkflowWaitingRequest, 'requestId'> => ({
  tool: 'payment.refund',
  event: 'REFUND',
  input: { amount: 150 },
  requestedBy: 'alice',
  from: { state: 'captured' },
  at: '2026-01-01T10:00:00.000Z',
  ...extra,
});

describe('waiting requests and their ids', () => {
  it('mints request ids of 24 URL-safe characters from the CSPRNG, new every time', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => newRequestId()));
    expect(ids.size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it('reads a request with its id as stored', () => {
    const stored = { ...asked(), requestId: 'r-stored' };
    expect(waitingRequestOf({ waiting: stored }, 'payment:p1')).toBe(stored);
    expect(waitingRequestOf({}, 'payment:p1')).toBeUndefined();
    expect(waitingRequestOf(undefined, 'payment:p1')).toBeUndefined();
  });

  it('gives a 0.4 request without an id one derived from the instance and the time it was asked: the same on every read, another for another request', () => {
    const legacy = asked() as WorkflowWaitingRequest;
    const first = waitingRequestOf({ waiting: legacy }, 'payment:p1')!;
    expect(first.requestId).toMatch(/^r04-[A-Za-z0-9_-]{24}$/);
    expect(waitingRequestOf({ waiting: legacy }, 'payment:p1')!.requestId).toBe(first.requestId);
    expect(waitingRequestOf({ waiting: legacy }, 'payment:p2')!.requestId).not.toBe(first.requestId);
    const later = asked({ at: '2026-01-01T10:00:00.001Z' }) as WorkflowWaitingRequest;
    expect(waitingRequestOf({ waiting: later }, 'payment:p1')!.requestId).not.toBe(first.requestId);
    expect(first).toMatchObject({ tool: 'payment.refund', input: { amount: 150 } });
  });

  it('names the requester as stored for guards, or (a 0.4 request) by id alone; nobody for an anonymous one', () => {
    const requester = { id: 'alice', scopes: ['payments:refund'], roles: ['clerk'], claims: { org: 'acme' } };
    expect(requesterOf({ ...asked({ requester }), requestId: 'r' })).toEqual(requester);
    expect(Object.isFrozen(requesterOf({ ...asked({ requester }), requestId: 'r' }))).toBe(true);
    expect(requesterOf({ ...asked(), requestId: 'r' })).toEqual({ id: 'alice', scopes: [], roles: [], claims: {} });
    expect(requesterOf({ ...asked({ requestedBy: null }), requestId: 'r' })).toBeUndefined();
  });

  it('tells people apart as the four-eyes rule does: the same person whatever the case, spaces, invisible characters or compatibility forms', () => {
    const alice = { requestedBy: 'alice' };
    for (const spelling of [
      'alice',
      'Alice',
      'ALICE',
      ' alice ',
      'alice\t',
      'a l i c e',
      'alice\u200b',
      '\u200dalice',
      'ali\u00adce',
      '\u{FF41}lice',
      'alice\ufeff',
    ]) {
      expect([spelling, isRequester(spelling, alice)]).toEqual([spelling, true]);
    }
    for (const other of ['alicia', 'alic', 'al1ce']) {
      expect([other, isRequester(other, alice)]).toEqual([other, false]);
    }
    expect(personOf('Straße')).toBe(personOf('STRASSE'));
    expect(isRequester(undefined, alice)).toBe(false);
    expect(isRequester('alice', { requestedBy: null })).toBe(false);
  });
});
