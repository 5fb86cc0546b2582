import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import type { McpResolvedInputRequestOptions } from './input-request-options.interface.js';
import { JSON_RPC_INVALID_PARAMS } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import type { ModernSdk } from './modern-era.js';
import * as messages from './protocol.messages.js';

/** What a sealed `requestState` carries: the handler's state, and what it was issued for. */
interface SealedState {
  /** `tools/call invoice.discharge`: the method and the name the state was issued for. */
  for: string;
  state: unknown;
}

/** `data.reason` of a refused `requestState`, as the SDK's own seam words it. */
const INVALID_REQUEST_STATE = 'invalid_request_state';

/**
 * Seals the `requestState` of 2026-07-28 input-required results with the SDK's HMAC-SHA256
 * codec (`createRequestStateCodec`, key `inputRequests.requestStateKey`): signed, short-lived,
 * bound to the principal, and to the method and name it was issued for. A retry's state is
 * opened before the handler runs; one that was changed, expired, or issued to another caller
 * or for another tool is refused with -32602 saying which, and nothing runs.
 */
export class McpRequestStateSeal {
  private readonly codec: RequestStateCodec<SealedState>;

  constructor(
    sdk: ModernSdk,
    private readonly options: McpResolvedInputRequestOptions,
  ) {
    this.codec = sdk.server.createRequestStateCodec<SealedState>({
      key: options.requestStateKey,
      ttlSeconds: Math.ceil(options.requestStateTtlMs / 1000),
      bind: (ctx) => ctx.http?.authInfo?.clientId ?? '',
    });
  }

  /** The wire `requestState` of `state`, issued for `target` (`tools/call <name>`). */
  seal(target: string, state: unknown, ctx: ServerContext): Promise<string> {
    return this.codec.mint({ for: target, state }, ctx);
  }

  /** The state a retry of `target` brought back (`undefined` when it brought none); refused unless this server issued it for this caller and target. */
  async open(target: string, wire: unknown, ctx: ServerContext): Promise<unknown> {
    if (wire === undefined) {
      return undefined;
    }
    const name = target.slice(target.indexOf(' ') + 1);
    if (typeof wire !== 'string') {
      throw this.refused(name, messages.requestStateMalformed());
    }
    let sealed: SealedState;
    try {
      sealed = await this.codec.verify(wire, ctx);
    } catch (error) {
      throw this.refused(name, this.why(error));
    }
    if (sealed.for !== target) {
      throw this.refused(name, messages.requestStateOtherTarget());
    }
    return sealed.state;
  }

  /** The codec's reason (`'mac'`, `'expired'`, `'bind'`, `'malformed'`) in words. */
  private why(error: unknown): string {
    switch (error instanceof Error ? error.message : '') {
      case 'mac':
        return messages.requestStateTampered();
      case 'expired':
        return messages.requestStateExpired(this.options.requestStateTtlMs);
      case 'bind':
        return messages.requestStateForeign();
      default:
        return messages.requestStateMalformed();
    }
  }

  private refused(name: string, why: string): JsonRpcError {
    return new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.requestStateRefused(name, why), { reason: INVALID_REQUEST_STATE });
  }
}
