import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { McpTasks } from './mcp-tasks.js';
import { MCP_TASK_OPTIONS, type McpResolvedTaskOptions } from './task-options.interface.js';

/**
 * Deletes expired tasks every `tasks.sweepIntervalMs` ({@link McpTasks.sweep}). Built only when
 * a tool of the module can make tasks (`@McpTool({ task })`, or an `@McpApproval` call that waits).
 */
@Injectable()
export class McpTaskSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @Inject(MCP_TASK_OPTIONS) private readonly options: McpResolvedTaskOptions,
    private readonly tasks: McpTasks,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.tasks.sweep().finally(() => (this.sweeping = undefined));
    }, this.options.sweepIntervalMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}
