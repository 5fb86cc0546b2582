import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpAccessRefusal } from '../auth/mcp-access.policy.js';
import { cutText, echoArguments } from '../client-input/client-input.echo.js';
import { MAX_ATTEMPT_MESSAGE_LENGTH } from '../client-input/client-input.limits.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowAttemptRecord } from '../stores/workflow-attempt.interface.js';
import type { WorkflowCall, WorkflowCaller } from './workflow-call.js';
import { teamOf } from './workflow-access.js';
import type { WorkflowSettlement } from './workflow-step-values.js';
import type { WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { isWellFormedHandle } from './workflow-handle.js';
import * as messages from './gating.messages.js';

/** Refusals that name no instance a caller tried: the store was down, or there is no session to key one by. */
const NOT_ATTEMPTS = new Set(['STATE_UNAVAILABLE', 'NO_SESSION']);
/** Attempt writes in flight at most; beyond, attempts are dropped (counted in the next warning) rather than queued. */
const MAX_WRITES_IN_FLIGHT = 256;
/** At most one warning about failed or dropped attempt writes per this long. */
const WARN_INTERVAL_MS = 60_000;

/** What one attempt says of its call, besides the instance it was made on. */
interface AttemptDetails {
  readonly tool: string;
  readonly code: string;
  readonly message: string;
  readonly args: Record<string, unknown>;
  readonly principal: string | undefined;
}

/**
 * Records the refused and declined calls of instances in the store (`FsmAttemptLog`),
 * for the console: as the gate's observer it reads each call's refusal once the gate is done,
 * and the transport and call handler tell it of calls refused for a missing scope or role. An
 * attempt names the tool, the code, the refusal's message, the caller's principal, the time and
 * the arguments, cut (`echoArguments`: a row stays bounded whatever the caller sent);
 * the store writes it only on an instance that exists and that the caller may see, so a caller
 * can add rows only to instances it could act on (a forged handle adds none), and each instance
 * keeps a bounded number. The write never delays the refusal: it runs after, and a failure is
 * logged, not answered.
 */
@Injectable()
export class WorkflowAttemptRecorder implements WorkflowGateObserver, OnApplicationShutdown {
  private readonly logger = new Logger('McpGate');
  private readonly writes = new Set<Promise<void>>();
  private failed = 0;
  private dropped = 0;
  private warnedAt = -Infinity;

  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
  ) {}

  claim<T>(_call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    return work();
  }

  commit<T>(_call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    return work();
  }

  /** Records the call's refusal, if it was refused on an instance. */
  settled(call: WorkflowCall, { refusal, instance }: WorkflowSettlement): void {
    if (!this.store.supports.attempts || !refusal || NOT_ATTEMPTS.has(refusal.data.code)) {
      return;
    }
    const storeKey = instance?.storeKey ?? this.instanceKey(call.tool, call.args, call.caller);
    if (storeKey) {
      const { machine } = refusal.data;
      // A teammate's refusal is an attempt on an instance they may see (a team rule).
      const team = this.machines.has(machine) ? teamOf(call.context.authInfo, this.machines.machine(machine)) : undefined;
      const { code } = refusal.data;
      this.record(
        machine,
        storeKey,
        { tool: call.tool.name, code, message: refusal.message, args: call.args, principal: call.principal },
        team,
      );
    }
  }

  /**
   * Records a call of `tool` refused because its caller (`authInfo`, `undefined` when anonymous)
   * lacks a scope (`INSUFFICIENT_SCOPE`) or a role (`INSUFFICIENT_ROLE`) it requires, on the
   * instance its arguments (or its session, `caller`) name: its own, or its team's under a team rule.
   */
  accessRefused(
    tool: McpHandlerDefinition,
    args: Record<string, unknown>,
    authInfo: AuthInfo | undefined,
    caller: Pick<WorkflowCaller, 'sessionStoreKey'>,
    refusal: McpAccessRefusal,
  ): void {
    if (!this.store.supports.attempts || tool.kind !== 'tool') {
      return;
    }
    const storeKey = this.instanceKey(tool, args, caller);
    if (storeKey && tool.role.kind !== 'ungated') {
      const { machine } = tool.role;
      const code = refusal.missingScopes.length > 0 ? 'INSUFFICIENT_SCOPE' : 'INSUFFICIENT_ROLE';
      const team = teamOf(authInfo, this.machines.machine(machine));
      this.record(machine, storeKey, { tool: tool.name, code, message: refusal.message, args, principal: authInfo?.clientId }, team);
    }
  }

  /**
   * Records the `tools/call` of an HTTP request body that was refused before it reached a
   * session (`refusal`, for its missing scope or role; `authInfo` says who called), on the
   * instance its arguments name, or the instance of the session `sessionId` (the 2026-07-28
   * era: of the principal).
   */
  refusedInBody(body: unknown, refusal: McpAccessRefusal, authInfo: AuthInfo | undefined, sessionId: string | undefined): void {
    if (!this.store.supports.attempts || refusal.kind !== 'tool') {
      return;
    }
    const principal = authInfo?.clientId;
    const scope =
      sessionId !== undefined
        ? { scope: 'session' as const, id: sessionId }
        : principal !== undefined
          ? { scope: 'principal' as const, id: principal }
          : undefined;
    const caller = { sessionStoreKey: (machine: string) => scope && formatInstanceKey({ machine, ...scope }) };
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
      const tool = method === 'tools/call' && params?.name === refusal.name ? this.tools.get(refusal.name) : undefined;
      if (tool) {
        const args =
          typeof params!.arguments === 'object' && params!.arguments !== null ? (params!.arguments as Record<string, unknown>) : {};
        return this.accessRefused(tool, args, authInfo, caller, refusal);
      }
    }
  }

  /** Waits for the attempt writes in flight. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  /** The store key of the instance a call of `tool` names: its handle argument, or its caller's session instance. */
  private instanceKey(
    tool: McpHandlerDefinition,
    args: Record<string, unknown>,
    caller: Pick<WorkflowCaller, 'sessionStoreKey'>,
  ): string | undefined {
    const { role } = tool;
    if (role.kind === 'ungated' || role.kind === 'start' || !this.machines.has(role.machine)) {
      return undefined;
    }
    const { machine } = role;
    const handleKey = this.machines.machine(machine).stateHandleKey;
    if (!handleKey) {
      return caller.sessionStoreKey(machine);
    }
    const handle = args[handleKey];
    return isWellFormedHandle(handle) ? formatInstanceKey({ machine, scope: 'handle', id: handle }) : undefined;
  }

  private record(machine: string, key: string, details: AttemptDetails, team?: string): void {
    if (this.writes.size >= MAX_WRITES_IN_FLIGHT) {
      this.dropped += 1;
      this.warn();
      return;
    }
    const { tool, code, principal } = details;
    const attempt: WorkflowAttemptRecord = {
      machine,
      key,
      tool,
      code,
      principal: principal ?? null,
      at: new Date().toISOString(),
      message: cutText(details.message, MAX_ATTEMPT_MESSAGE_LENGTH),
      args: echoArguments(details.args),
    };
    const write = this.store
      .recordAttempt(attempt, principal, team)
      .then(
        () => undefined,
        (error: unknown) => {
          this.failed += 1;
          this.warn(error);
        },
      )
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  private warn(error?: unknown): void {
    const now = Date.now();
    if (now - this.warnedAt < WARN_INTERVAL_MS) {
      return;
    }
    this.warnedAt = now;
    this.logger.warn(messages.attemptsNotRecorded(this.failed, this.dropped, MAX_WRITES_IN_FLIGHT, error));
    this.failed = this.dropped = 0;
  }
}
