import { Inject, Injectable } from '@nestjs/common';
import { ElicitResultSchema, ErrorCode, McpError, type ClientCapabilities, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createHash, randomBytes } from 'node:crypto';
import { formatIssues } from '../client-input/client-input.echo.js';
import type { McpToolConfirmation } from '../registry/mcp-handler-role.js';
import { McpInputRequired } from '../results/input-required.js';
import { McpPendingRequestsError } from '../results/pending-requests.error.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from './confirmation-options.interface.js';
import type { WorkflowCall } from './workflow-call.js';
import { deny, type WorkflowDenial } from './workflow-denial.js';
import type { WorkflowInstanceRef } from './workflow-step-values.js';
import * as messages from './gating.messages.js';

/** The key of the confirmation among a 2026-07-28 call's input requests and responses. */
export const CONFIRMATION_INPUT_KEY = 'nestjs-mcp-fsm/confirm';

/** What a 2026-07-28 confirmation keeps in the call's `requestState` (signed by the protocol layer, bound to the caller and the tool). */
interface ConfirmationState {
  kind: typeof CONFIRMATION_INPUT_KEY;
  /** Digest of the instance, its state and version, the tool, the principal and the arguments the question was about. */
  digest: string;
  /** Makes the state single-use (per process): a yes confirms one call. */
  nonce: string;
  /** When the state stops mattering (the nonce is forgotten then), epoch ms. */
  expiresAt: number;
}

/** The instance a person is asked about, as the gate read it (not claimed). */
export interface ConfirmationSubject {
  readonly instance: WorkflowInstanceRef;
  /** The instance as read: the stored snapshot, or the initial one of a session's instance not stored yet. */
  readonly snapshot: WorkflowSnapshot;
  /** The stored snapshot; `undefined`: not stored yet. */
  readonly stored: WorkflowSnapshot | undefined;
}

/** What the person filled in when they said yes (`{}` after a plain yes): what the handler reads as `ctx.confirmation`. */
export type ConfirmationAnswer = Readonly<Record<string, unknown>>;

/** The instance a person said yes about, with what they filled in. */
export interface ConfirmedSubject extends ConfirmationSubject {
  readonly confirmation: ConfirmationAnswer;
}

/** Used nonces a process remembers at most; the oldest go first. */
const MAX_USED_NONCES = 10_000;

/**
 * The gate's confirmation step (`@McpConfirm`): after the gate found the instance in a bound
 * state, and before it claims anything, it gets the person's yes. On a 2025-11-25 session it
 * asks with `elicitation/create` on the call's own stream and waits (bounded); in 2026-07-28 it
 * answers an input-required result and checks the answer the retry brings. No claim is held
 * meanwhile: the gate claims after the yes, and its admission makes sure the claimed instance
 * is still the one the person was asked about.
 */
@Injectable()
export class WorkflowConfirmations {
  /** Nonces of 2026-07-28 confirmations this process accepted, with when they expire. */
  private readonly used = new Map<string, number>();

  constructor(@Inject(WORKFLOW_CONFIRMATION_OPTIONS) private readonly options: WorkflowConfirmationOptions) {}

  /**
   * Gets the person's yes for `call`, whose instance the gate read (not claimed) as `subject`:
   * answers the question a 2026-07-28 call returns instead of running, or what the person
   * filled in once they said yes. Throws DECLINED or CONFIRMATION_REQUIRED.
   */
  async ask(
    call: WorkflowCall,
    confirmation: McpToolConfirmation,
    input: Record<string, unknown>,
    subject: ConfirmationSubject,
  ): Promise<McpInputRequired | ConfirmationAnswer> {
    const { machine } = subject.instance;
    const { state } = subject.snapshot;
    const context = call.context;
    if (call.caller.kind === 'stateless') {
      throw deny({ code: 'CONFIRMATION_REQUIRED', machine, state, why: messages.noWayToAsk() });
    }
    const modern = call.caller.kind === 'modern';
    if (!acceptsForms(context.clientCapabilities)) {
      const why = modern ? messages.noElicitationInRequest() : messages.noElicitationAtInitialize();
      throw deny({ code: 'CONFIRMATION_REQUIRED', machine, state, why });
    }
    const params = {
      mode: 'form' as const,
      message: await confirmation.message(input, context),
      requestedSchema: confirmation.requestedSchema,
    };
    const digest = this.digest(call, subject);
    if (modern) {
      const answer = this.answerOf(call, subject, digest);
      return answer ? this.accept(subject, confirmation, answer) : this.question(params, digest);
    }
    return this.accept(subject, confirmation, await this.request(call, subject, params, confirmation.timeoutMs));
  }

  /** Asks on the call's own stream (2025-11-25) and waits for the answer, at most `timeoutMs`. */
  private async request(call: WorkflowCall, subject: ConfirmationSubject, params: object, timeoutMs: number): Promise<ElicitResult> {
    const { extra } = call.context;
    try {
      return await extra.sendRequest({ method: 'elicitation/create', params } as never, ElicitResultSchema, {
        timeout: timeoutMs,
        signal: extra.signal,
      });
    } catch (error) {
      if (error instanceof McpPendingRequestsError) {
        const why = messages.tooManyWaiting(error.limit);
        throw deny({ code: 'CONFIRMATION_REQUIRED', machine: subject.instance.machine, state: subject.snapshot.state, why });
      }
      const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
      throw this.declined(subject, timedOut ? messages.noAnswerInTime(timeoutMs) : messages.clientFailedToAsk(messages.reasonOf(error)));
    }
  }

  /** The input-required result of a 2026-07-28 call: the question, and the state its retry must bring back. */
  private question(params: object, digest: string): McpInputRequired {
    const state: ConfirmationState = {
      kind: CONFIRMATION_INPUT_KEY,
      digest,
      nonce: randomBytes(16).toString('base64url'),
      expiresAt: Date.now() + this.options.requestStateTtlMs,
    };
    return new McpInputRequired({ [CONFIRMATION_INPUT_KEY]: { method: 'elicitation/create', params: params as never } }, state);
  }

  /**
   * The answer a 2026-07-28 retry brings for this very call, or `undefined` when it brings none
   * (or not one to a question of the module's): then the person is asked. A confirmation of
   * another call, or one used already, is refused.
   */
  private answerOf(call: WorkflowCall, subject: ConfirmationSubject, digest: string): ElicitResult | undefined {
    const state = call.context.requestState as Partial<ConfirmationState> | undefined;
    const parsed = ElicitResultSchema.safeParse(call.context.inputResponses?.[CONFIRMATION_INPUT_KEY]);
    if (!parsed.success || state?.kind !== CONFIRMATION_INPUT_KEY || typeof state.nonce !== 'string') {
      return undefined;
    }
    const { machine } = subject.instance;
    const current = subject.snapshot.state;
    if (state.digest !== digest) {
      throw deny({ code: 'CONFIRMATION_REQUIRED', machine, state: current, why: messages.confirmationForeign(machine) });
    }
    this.forgetExpired();
    if (this.used.has(state.nonce)) {
      throw deny({ code: 'CONFIRMATION_REQUIRED', machine, state: current, why: messages.confirmationUsed() });
    }
    if (this.used.size >= MAX_USED_NONCES) {
      this.used.delete(this.used.keys().next().value!);
    }
    this.used.set(state.nonce, typeof state.expiresAt === 'number' ? state.expiresAt : Date.now() + this.options.requestStateTtlMs);
    return parsed.data;
  }

  /** What the person filled in when they said yes (checked against the question's form); refuses anything else. */
  private accept(subject: ConfirmationSubject, confirmation: McpToolConfirmation, answer: ElicitResult): ConfirmationAnswer {
    if (answer.action === 'decline') {
      throw this.declined(subject, messages.personDeclined());
    }
    if (answer.action !== 'accept') {
      throw this.declined(subject, messages.personCancelled());
    }
    const content = answer.content ?? {};
    if (confirmation.schema) {
      const checked = confirmation.schema.safeParse(content);
      if (!checked.success) {
        throw this.declined(subject, messages.answerDoesNotFit(formatIssues(checked.error.issues)));
      }
      return checked.data as Record<string, unknown>;
    }
    return {};
  }

  private declined(subject: ConfirmationSubject, why: string): WorkflowDenial {
    return deny({ code: 'DECLINED', machine: subject.instance.machine, state: subject.snapshot.state, why });
  }

  /** What a yes is about: the instance (key, state, version), the tool, the principal and the arguments. */
  private digest(call: WorkflowCall, { instance, snapshot, stored }: ConfirmationSubject): string {
    const about = [
      instance.storeKey,
      snapshot.state,
      stored?.updatedAt ?? null,
      call.tool.name,
      call.principal ?? null,
      canonical(call.args),
    ];
    return createHash('sha256').update(JSON.stringify(about)).digest('base64url');
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [nonce, expiresAt] of this.used) {
      if (expiresAt <= now) this.used.delete(nonce);
    }
  }
}

/** Whether declared capabilities let the server ask a form-mode elicitation (`elicitation: {}` means form). */
function acceptsForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: object; url?: object } | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** A JSON value with its object keys sorted, so equal arguments digest alike. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(canonical);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
