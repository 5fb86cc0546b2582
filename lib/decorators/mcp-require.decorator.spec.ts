import { Reflector } from '@nestjs/core';
import { defineAccess } from '../access/define-access.js';
import { MCP_REQUIRE_METADATA, McpRequire, type McpRequireOptions } from './mcp-require.decorator.js';

const access = defineAccess({ scopes: ['payments:refund'], roles: ['finance'] });

describe('@McpRequire', () => {
  it('stores the scopes and roles on a method and on a class', () => {
    @McpRequire(access, { roles: ['finance'] })
    class Tools {
      @McpRequire({ scopes: ['payments:refund'] })
      refund() {}
    }
    const reflector = new Reflector();
    expect(reflector.get(MCP_REQUIRE_METADATA, Tools)).toEqual({ scopes: [], roles: ['finance'] });
    expect(reflector.get(MCP_REQUIRE_METADATA, Tools.prototype.refund)).toEqual({ scopes: ['payments:refund'], roles: [] });
  });

  it('refuses, in code the compiler did not check, a name its defineAccess does not declare', () => {
    const unchecked = { scopes: ['payments:refnud'], roles: ['admin'] } as unknown as McpRequireOptions<'payments:refund', 'finance'>;
    expect(() => McpRequire(access, unchecked)).toThrow(
      '@McpRequire names "payments:refnud", "admin", which its defineAccess(...) does not declare; add them there.',
    );
  });
});
