import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { providersWhenUsed } from '../server/configured.providers.js';
import { WorkflowDeadlineScheduler } from './workflow-deadline.scheduler.js';
import { WorkflowDeadlines } from './workflow-deadlines.js';

/**
 * The deadlines of one McpModule: the definitions of `after` transitions and the scheduler that
 * fires due timers. Built only when a machine has `after` transitions, an `@McpApproval` request
 * expires or an `@McpDeadline` method exists; else `WorkflowDeadlineScheduler` is `null`.
 */
@Module({})
export class McpDeadlinesModule {
  /** The deadline scheduler on the McpModule's options and core modules. */
  static register(options: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpDeadlinesModule,
      imports: [DiscoveryModule, options, core],
      providers: providersWhenUsed('deadlines', [WorkflowDeadlines, WorkflowDeadlineScheduler]),
      exports: [WorkflowDeadlineScheduler],
    };
  }
}
