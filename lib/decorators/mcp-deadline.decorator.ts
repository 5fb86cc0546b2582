import { SetMetadata } from '@nestjs/common';
import { MCP_DEADLINE_METADATA } from '../mcp.constants.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Metadata stored by `@McpDeadline`. */
export interface McpDeadlineMetadata {
  machine: McpMachineRef;
  /** The state whose `after` transitions the method goes with (every one of them). */
  state: string;
}

/**
 * Declares what runs with the `after` transitions of `state` (a transition no tool fires): when
 * one of its timers fires, the gate claims the instance, runs the machine's guards, then calls
 * the method with the call's context (`ctx.manager` is the transaction the state change commits
 * in, on a store that supports transactions), then commits the transition with its history
 * row (actor `deadline:<timer id>`). A method that throws rolls the transition back; the timer
 * is retried later with backoff, a bounded number of times, and each failure is logged and
 * counted. Without a method, a timer still moves the instance.
 *
 * @example
 * \@McpDeadline(paymentMachine, 'authorized')
 * async voidAuthorization(ctx: McpToolContext<EntityManager>): Promise<void> {
 *   await ctx.manager!.insert(LedgerEntry, { paymentId: ctx.handle, kind: 'void' });
 * }
 */
export function McpDeadline(machine: McpMachineRef, state: string): MethodDecorator {
  return SetMetadata(MCP_DEADLINE_METADATA, { machine, state } satisfies McpDeadlineMetadata);
}
