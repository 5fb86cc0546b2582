import { Injectable, Logger } from '@nestjs/common';
import { toStateValue } from '../machines/state-value.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import type { WorkflowCall } from './workflow-call.js';
import { HANDLE_LENGTH, isWellFormedHandle } from './workflow-handle.js';
import { WorkflowRefusal, type WorkflowRefusalCode } from './workflow-refusal.js';
import * as messages from './gating.messages.js';
import type { WorkflowDenialReason } from './workflow-denial.js';

/** Builds refusals with the allowed actions the model needs to recover. */
@Injectable()
export class WorkflowRefusals {
  private readonly logger = new Logger('McpGate');

  constructor(private readonly tools: McpToolRegistry) {}

  /** The refusal a step of the gate's denial (`reason`) is for the caller of `call`. */
  of(call: WorkflowCall, reason: WorkflowDenialReason): WorkflowRefusal {
    switch (reason.code) {
      case 'FORBIDDEN':
        return this.forbidden(call, reason.machine, reason.state);
      case 'BUSY':
        return this.busy(call, reason.machine, reason.state);
      case 'UNKNOWN_STATE':
        return this.unknownState(call, reason.machine, reason.state);
      case 'GUARD_REJECTED':
        return this.guardRejected(call, reason.machine, reason.state, reason.event, reason.guards, reason.reasons);
      case 'UNKNOWN_HANDLE':
        return this.unknownHandle(call, reason.machine, reason.key, reason.handle);
      case 'NO_SESSION':
        return this.noSession(call, reason.machine);
      case 'LEASE_EXPIRED':
        return this.leaseExpired(call, reason.machine, reason.state, reason.leaseMs);
      case 'DECLINED':
        return this.declined(call, reason.machine, reason.state, reason.why);
      case 'CONFIRMATION_REQUIRED':
        return this.confirmationRequired(call, reason.machine, reason.state, reason.why);
      case 'SELF_APPROVAL':
        return this.selfApproval(call, reason.machine, reason.state, reason.requestedBy, reason.anonymous);
      case 'STALE_REQUEST': {
        const text = messages.staleRequest(call.tool.name, reason.machine, reason.state, reason.named, reason.now);
        const refusal = this.refuse(call, 'STALE_REQUEST', text, reason.machine, reason.state);
        return reason.now ? new WorkflowRefusal(refusal.message, { ...refusal.data, waitingRequestId: reason.now.requestId }) : refusal;
      }
      case 'NOT_APPROVER': {
        const text = messages.notApprover(
          call.tool.name,
          reason.machine,
          reason.state,
          reason.approvers,
          reason.requestedBy,
          reason.withdraws,
        );
        return this.refuse(call, 'NOT_APPROVER', text, reason.machine, reason.state);
      }
    }
  }

  /** The call may not run while the instance is in `state`. */
  forbidden(call: WorkflowCall, machine: string, state: string): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    return this.refuse(call, 'FORBIDDEN', messages.forbidden(call.tool.name, machine, state, allowed), machine, state, allowed);
  }

  /** The bound event is not enabled in `state` for the call's input, the instance's context and the caller; `reasons`: why, when the guards give reasons. */
  guardRejected(
    call: WorkflowCall,
    machine: string,
    state: string,
    event: string,
    guards: readonly string[],
    reasons: readonly string[] = [],
  ): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    const text = messages.guardRejected(call.tool.name, machine, state, event, guards, allowed, reasons);
    return this.refuse(call, 'GUARD_REJECTED', text, machine, state, allowed);
  }

  /** Another call holds the instance. */
  busy(call: WorkflowCall, machine: string, state: string): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    return this.refuse(call, 'BUSY', messages.busy(call.tool.name, machine, allowed), machine, state, allowed);
  }

  /** The handle argument is missing, malformed (the refusal names a handle's format), unknown, expired or someone else's. */
  unknownHandle(call: WorkflowCall, machine: string, key: string, handle: unknown): WorkflowRefusal {
    const start = this.allowed(call, this.tools.startNames(machine));
    const text = isWellFormedHandle(handle)
      ? messages.unknownHandle(call.tool.name, machine, handle, start)
      : messages.malformedHandle(call.tool.name, machine, key, handle, HANDLE_LENGTH, start);
    return this.refuse(call, 'UNKNOWN_HANDLE', text, machine, null, this.allowed(call, this.tools.entryNames(machine)));
  }

  /** The instance is stored in a state the machine does not have. */
  unknownState(call: WorkflowCall, machine: string, state: string): WorkflowRefusal {
    const text = messages.unknownState(call.tool.name, machine, state);
    return this.refuse(call, 'UNKNOWN_STATE', text, machine, state, this.allowed(call, this.tools.entryNames(machine)));
  }

  /** The store could not be read or written; the handler did not run (or its transition was not stored); `handle`: a start tool's, when minted. */
  stateUnavailable(call: WorkflowCall, machine: string, handlerRan: boolean, handle?: string): WorkflowRefusal {
    const text = messages.stateUnavailable(call.tool.name, machine, handlerRan, handle, call.idempotency !== undefined);
    return this.refuse(call, 'STATE_UNAVAILABLE', text, machine, null, []);
  }

  /**
   * The store failed before any call began (a read of the app's own code, such as
   * `McpWorkflowService.send`'s): STATE_UNAVAILABLE for `tool`, nothing ran; the cause is logged here, never told.
   */
  storeUnreadable(tool: string, machine: string, cause: unknown): WorkflowRefusal {
    this.logger.error(messages.storeFailed(tool, machine, cause), cause instanceof Error ? cause.stack : undefined);
    const text = messages.stateUnavailable(tool, machine, false);
    return new WorkflowRefusal(text, { code: 'STATE_UNAVAILABLE', tool, machine, state: null, allowedTools: [] });
  }

  /** The caller used the call's idempotency key for another call (`firstTool`, or other arguments) within its retention; nothing ran. */
  idempotencyKeyReused(call: WorkflowCall, machine: string, key: string, firstTool: string): WorkflowRefusal {
    return this.refuse(call, 'IDEMPOTENCY_KEY_REUSED', messages.idempotencyKeyReused(call.tool.name, key, firstTool), machine, null, []);
  }

  /** A session-keyed tool was called on a transport without sessions. */
  noSession(call: WorkflowCall, machine: string): WorkflowRefusal {
    const text = (call.caller.kind === 'modern' ? messages.noPrincipal : messages.noSession)(call.tool.name, machine);
    return this.refuse(call, 'NO_SESSION', text, machine, null, this.allowed(call, this.tools.entryNames(machine)));
  }

  /** The handler ran longer than its lease; the transition was not stored. */
  leaseExpired(call: WorkflowCall, machine: string, state: string, leaseMs: number): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    const text = messages.leaseExpired(call.tool.name, machine, state, leaseMs);
    return this.refuse(call, 'LEASE_EXPIRED', text, machine, state, allowed);
  }

  /** The person at the client said no to a confirmed transition, dismissed it, or did not answer in time (`why` says which). */
  declined(call: WorkflowCall, machine: string, state: string, why: string, tool = call.tool.name): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    const refusal = this.refuse(call, 'DECLINED', messages.declined(tool, machine, state, why, allowed), machine, state, allowed);
    return tool === call.tool.name ? refusal : new WorkflowRefusal(refusal.message, { ...refusal.data, tool });
  }

  /** A confirmed transition cannot get a person's yes on this call (`why` names what is needed). */
  confirmationRequired(call: WorkflowCall, machine: string, state: string | null, why: string): WorkflowRefusal {
    const text = messages.confirmationRequired(call.tool.name, machine, state, why);
    return this.refuse(call, 'CONFIRMATION_REQUIRED', text, machine, state);
  }

  /** The caller may not approve the waiting request: it asked for it, or it is anonymous (four eyes, `@McpApproval`). */
  selfApproval(call: WorkflowCall, machine: string, state: string, requestedBy: string | null, anonymous: boolean): WorkflowRefusal {
    const allowed = this.allowed(call, this.tools.allowedNames(machine, state));
    const text = anonymous
      ? messages.anonymousApproval(call.tool.name, machine, state)
      : messages.selfApproval(call.tool.name, machine, state, requestedBy, allowed, call.principal);
    return this.refuse(call, 'SELF_APPROVAL', text, machine, state, allowed);
  }

  /** The tools of `names` the caller may use: a refusal never names one it cannot see. */
  private allowed(call: WorkflowCall, names: readonly string[]): readonly string[] {
    return this.tools.usableBy(names, call.caller.grants);
  }

  /**
   * A refusal with any code, for gate subclasses (`'FROZEN'`, say): `text` is what the model
   * reads; the allowed tools are those of `state` when given, else the workflow's entry tools.
   */
  refuse(
    call: WorkflowCall,
    code: WorkflowRefusalCode,
    text: string,
    machine: string,
    state: string | null = null,
    allowedTools: readonly string[] = state === null
      ? this.allowed(call, this.tools.entryNames(machine))
      : this.allowed(call, this.tools.allowedNames(machine, state)),
  ): WorkflowRefusal {
    return new WorkflowRefusal(text, {
      code,
      tool: call.tool.name,
      machine,
      state: state === null ? null : toStateValue(state),
      allowedTools: [...allowedTools],
    });
  }
}
