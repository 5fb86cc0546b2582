import type { Attributes, Counter, Span, Tracer } from '@opentelemetry/api';
import type { WorkflowCall } from '../gating/workflow-call.js';
import type { WorkflowGateObserver } from '../gating/workflow-gate-observer.interface.js';
import type { WorkflowSettlement } from '../gating/workflow-step-values.js';
import { instanceDigest } from './instance-digest.js';
import type { OtelApi } from './otel-api.loader.js';
import {
  OUTCOME_ABANDONED,
  OUTCOME_COMMITTED,
  TOOL_ERROR,
  WORKFLOW_CLAIM_SPAN,
  WORKFLOW_COMMIT_SPAN,
  WORKFLOW_EVENT,
  WORKFLOW_ACTOR,
  WORKFLOW_APPROVAL_REQUEST_ID,
  WORKFLOW_APPROVAL_REQUESTED_BY,
  WORKFLOW_APPROVAL_VERDICT,
  WORKFLOW_INSTANCE_ID,
  WORKFLOW_MACHINE,
  WORKFLOW_OUTCOME,
  WORKFLOW_REFUSAL_CODE,
  WORKFLOW_STATE_FROM,
  WORKFLOW_STATE_TO,
} from './telemetry.names.js';

/** What the gate's telemetry works with, made once by `McpTelemetry`. */
interface GateTelemetryParts {
  api: OtelApi;
  tracer: Tracer;
  transitions: Counter;
  /** Whether `transitions` records (a meter provider was registered). */
  measures: boolean;
  /** Whether a tracer provider is registered (until one is, no request has a server span). */
  tracing: () => boolean;
  /** Context key under which the request's server span is found below it. */
  serverSpanKey: symbol;
  digestKey: Uint8Array | string;
}

/**
 * The gate's observer when telemetry is on: the claim and the commit as child spans of the
 * request's server span, the workflow attributes on that span when the gate is done, and one
 * `workflow.transitions` count per call of a tool that fires an event.
 */
export class WorkflowGateTelemetry implements WorkflowGateObserver {
  constructor(private readonly parts: GateTelemetryParts) {}

  claim<T>(call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    return this.child(WORKFLOW_CLAIM_SPAN, call, work);
  }

  commit<T>(call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    return this.child(WORKFLOW_COMMIT_SPAN, call, work);
  }

  settled(call: WorkflowCall, { instance, admitted, stored, refusal, abandoned, asking, decided }: WorkflowSettlement): void {
    const span = this.parts.tracing() ? this.serverSpan() : undefined;
    const { role } = call.tool;
    if ((!span && !this.parts.measures) || role.kind === 'ungated') {
      return;
    }
    const machine = instance?.machine ?? refusal?.data.machine ?? role.machine;
    const event = role.kind === 'start' || role.kind === 'transition' ? role.event : undefined;
    const outcome = refusal ? refusal.data.code : stored !== undefined ? OUTCOME_COMMITTED : abandoned ? OUTCOME_ABANDONED : TOOL_ERROR;
    if (span) {
      const attributes: Attributes = { [WORKFLOW_MACHINE]: machine };
      if (event) attributes[WORKFLOW_EVENT] = event;
      if (admitted && role.kind !== 'start') attributes[WORKFLOW_STATE_FROM] = admitted.state;
      if (typeof stored?.state === 'string') attributes[WORKFLOW_STATE_TO] = stored.state;
      if (refusal) attributes[WORKFLOW_REFUSAL_CODE] = refusal.data.code;
      if (instance) attributes[WORKFLOW_INSTANCE_ID] = instanceDigest(this.parts.digestKey, instance.storeKey);
      if (call.principal !== undefined) attributes[WORKFLOW_ACTOR] = call.principal;
      if (decided) {
        attributes[WORKFLOW_APPROVAL_VERDICT] = decided.verdict;
        if (decided.requestedBy !== null) attributes[WORKFLOW_APPROVAL_REQUESTED_BY] = decided.requestedBy;
        if (decided.requestId !== undefined) attributes[WORKFLOW_APPROVAL_REQUEST_ID] = decided.requestId;
      }
      span.setAttributes(attributes);
    }
    // A question for the client (a confirmation, input a handler asks for) is no outcome yet: the call that answers it is.
    if (event && !asking) {
      this.parts.transitions.add(1, { [WORKFLOW_MACHINE]: machine, [WORKFLOW_EVENT]: event, [WORKFLOW_OUTCOME]: outcome });
    }
  }

  /** The server span of the request the gate runs in; `undefined` outside one that records. */
  private serverSpan(): Span | undefined {
    return this.parts.api.context.active().getValue(this.parts.serverSpanKey) as Span | undefined;
  }

  /** `work` in a child span of the server span (only below one that records: nothing to attach it to otherwise). */
  private child<T>(name: string, call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    return this.parts.tracing() && this.serverSpan() ? this.inChild(name, call, work) : work();
  }

  private async inChild<T>(name: string, call: WorkflowCall, work: () => Promise<T>): Promise<T> {
    const { tracer, api } = this.parts;
    const { role } = call.tool;
    const span = tracer.startSpan(name, {
      attributes: role.kind === 'start' || role.kind === 'transition' ? { [WORKFLOW_MACHINE]: role.machine } : {},
    });
    try {
      return await api.context.with(api.trace.setSpan(api.context.active(), span), work);
    } catch (error) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }
}
