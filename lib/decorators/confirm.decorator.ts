import { SetMetadata } from '@nestjs/common';
import type { ZodObject } from 'zod';
import { MCP_CONFIRM_METADATA } from '../mcp.constants.js';
import type { WorkflowContext } from './workflow-context.interface.js';

/**
 * The question put to the person: a fixed text, or one written from the call's arguments
 * (after the pipes) and the instance as the gate found it (`ctx.state`, `ctx.workflowContext`,
 * `ctx.handle`, `ctx.sessionId`).
 */
export type McpConfirmMessage<TMachine extends { readonly id: string }, TArgs> =
  string | ((args: TArgs, ctx: WorkflowContext<TMachine>) => string | Promise<string>);

/** Options of `@McpConfirm`. */
export interface McpConfirmOptions<TMachine extends { readonly id: string }, TArgs> {
  /** The question; it should name what cannot be undone ("Discharge invoice 42 for 1,200 EUR?"). */
  message: McpConfirmMessage<TMachine, TArgs>;
  /**
   * What the person fills in besides saying yes: a zod object of flat fields (strings, numbers,
   * booleans, enums), sent as the elicitation's `requestedSchema`. The accepted answer is
   * checked against it (one that does not fit is `DECLINED`) and reaches the handler as
   * `ctx.confirmation`.
   * @default none: a plain yes
   */
  schema?: ZodObject;
  /**
   * How long a 2025-11-25 session waits for the answer; then the call is `DECLINED` saying so.
   * @default the module's `inputRequests.timeoutMs`
   */
  timeoutMs?: number;
}

/** Metadata stored by `@McpConfirm`. */
export interface McpConfirmMetadata {
  machine: { readonly id: string };
  message: McpConfirmMessage<{ readonly id: string }, Record<string, unknown>>;
  schema?: ZodObject;
  timeoutMs?: number;
}

/**
 * Asks the person at the client to confirm before the tool's transition runs: the gate checks
 * the instance's state first (out of state: `FORBIDDEN`, nobody is asked), then asks
 * (`elicitation/create` on a 2025-11-25 session, an input-required result in 2026-07-28) and
 * claims the instance only after the yes; a no is `DECLINED`, a client that cannot be asked
 * `CONFIRMATION_REQUIRED`. Goes with `@McpBindState(machine, states, event)` of the same
 * machine. See docs/confirmations.md.
 *
 * @example
 * \@McpTool({ name: 'invoice.discharge', description: 'Discharge the approved invoice' })
 * \@McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
 * \@McpConfirm(invoiceMachine, (args, ctx) => `Discharge invoice ${ctx.sessionId}? This cannot be undone.`)
 * discharge() { ... }
 */
export function McpConfirm<TMachine extends { readonly id: string }, TArgs extends object = Record<string, unknown>>(
  machine: TMachine,
  options: McpConfirmMessage<TMachine, TArgs> | McpConfirmOptions<TMachine, TArgs>,
): MethodDecorator {
  const resolved = typeof options === 'object' ? options : { message: options };
  return SetMetadata<string, McpConfirmMetadata>(MCP_CONFIRM_METADATA, {
    machine,
    message: resolved.message as McpConfirmMetadata['message'],
    schema: resolved.schema,
    timeoutMs: resolved.timeoutMs,
  });
}
