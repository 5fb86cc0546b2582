import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { negotiatedProtocolVersion, replayableInitialize } from './initialize-replay.js';

const params = {
  protocolVersion: '2025-06-18',
  capabilities: { roots: { listChanged: true } },
  clientInfo: { name: 'agent', version: '1.0.0' },
};

describe('replaying a stored initialize', () => {
  it('negotiates as the SDK server does: a version it speaks stays, any other becomes its latest', () => {
    expect(negotiatedProtocolVersion('2025-06-18')).toBe('2025-06-18');
    expect(negotiatedProtocolVersion('2024-11-05')).toBe('2024-11-05');
    for (const unspoken of ['2026-03-01', '2026-07-28', 'DRAFT-2027-v1', '']) {
      expect(negotiatedProtocolVersion(unspoken)).toBe(LATEST_PROTOCOL_VERSION);
    }
  });

  it('replays stored params with the version the server negotiates, keeping the rest as stored', () => {
    expect(replayableInitialize(params)).toStrictEqual(params);
    expect(replayableInitialize({ ...params, protocolVersion: '2026-03-01', _meta: { trace: 'x' } })).toStrictEqual({
      ...params,
      protocolVersion: LATEST_PROTOCOL_VERSION,
      _meta: { trace: 'x' },
    });
  });

  it('says why params the SDK would refuse cannot be replayed', () => {
    expect(replayableInitialize(null)).toMatch(/^its stored initialize params are not valid \(params: /);
    expect(replayableInitialize({ ...params, protocolVersion: 20251125 })).toMatch(/protocolVersion: /);
    expect(replayableInitialize({ protocolVersion: '2025-11-25' })).toMatch(/capabilities: .*clientInfo: /);
  });
});
