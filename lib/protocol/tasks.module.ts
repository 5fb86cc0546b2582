import { Module, type DynamicModule } from '@nestjs/common';
import { providersWhenUsed } from '../server/configured.providers.js';
import { TaskCallResumer } from './task-call.resumer.js';
import { McpTaskSweeper } from '../tasks/mcp-task.sweeper.js';

/**
 * The background work of MCP tasks in one McpModule: the sweep of expired tasks and the resumer
 * of tasks a stopped process left. Built only when a tool can make tasks (`@McpTool({ task })`,
 * `@McpApproval`); the tasks themselves (`tasks/get`, `tasks/list`, ...) are the core's.
 */
@Module({})
export class McpTasksModule {
  /** The task sweeper and resumer on the McpModule's options and core modules. */
  static register(options: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpTasksModule,
      imports: [options, core],
      providers: providersWhenUsed('tasks', [McpTaskSweeper, TaskCallResumer]),
    };
  }
}
