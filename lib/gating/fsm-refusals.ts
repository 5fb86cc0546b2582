import { Injectable } from '@nestjs/common';
import { McpToolRegistry } from '../discovery/mcp-tool.registry.js';
import * as messages from '../mcp.messages.js';
import type { FsmCall } from './fsm-call.js';
import { FsmRefusal, type FsmRefusalCode } from './fsm-refusal.error.js';

/** Builds refusals with the allowed actions the model needs to recover. */
@Injectable()
export class FsmRefusals {
  constructor(private readonly tools: McpToolRegistry) {}

  /** The call may not run while the instance is in `state`. */
  forbidden(call: FsmCall, machine: string, state: string): FsmRefusal {
    const allowed = this.tools.allowedNames(machine, state);
    return this.create('FORBIDDEN', messages.forbidden(call.tool.name, machine, state, allowed), call, machine, state, allowed);
  }

  /** Another call holds the instance. */
  busy(call: FsmCall, machine: string, state: string): FsmRefusal {
    const allowed = this.tools.allowedNames(machine, state);
    return this.create('BUSY', messages.busy(call.tool.name, machine, allowed), call, machine, state, allowed);
  }

  /** The handle argument is missing, malformed, unknown, expired or someone else's. */
  unknownHandle(call: FsmCall, machine: string, key: string, handle: unknown): FsmRefusal {
    const entry = this.tools.entryNames(machine);
    const text = messages.unknownHandle(call.tool.name, machine, key, handle, this.tools.startNames(machine));
    return this.create('UNKNOWN_HANDLE', text, call, machine, null, entry);
  }

  /** The store could not be read or written; the handler did not run (or its transition was not stored). */
  stateUnavailable(call: FsmCall, machine: string, error: unknown, handlerRan: boolean): FsmRefusal {
    const handle = call.tool.start ? call.instance?.handle : undefined;
    const text = messages.stateUnavailable(call.tool.name, machine, messages.reasonOf(error), handlerRan, handle);
    return this.create('STATE_UNAVAILABLE', text, call, machine, null, []);
  }

  /** A session-keyed tool was called on a transport without sessions. */
  noSession(call: FsmCall, machine: string): FsmRefusal {
    const entry = this.tools.entryNames(machine);
    return this.create('NO_SESSION', messages.noSession(call.tool.name, machine), call, machine, null, entry);
  }

  /** The handler ran longer than its lease; the transition was not stored. */
  leaseExpired(call: FsmCall, machine: string, state: string, leaseMs: number): FsmRefusal {
    const allowed = this.tools.allowedNames(machine, state);
    const text = messages.leaseExpired(call.tool.name, machine, state, leaseMs);
    return this.create('LEASE_EXPIRED', text, call, machine, state, allowed);
  }

  private create(
    code: FsmRefusalCode,
    text: string,
    call: FsmCall,
    machine: string,
    state: string | null,
    allowedTools: string[],
  ): FsmRefusal {
    return new FsmRefusal(text, { code, tool: call.tool.name, machine, state, allowedTools });
  }
}
