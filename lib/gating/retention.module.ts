import { Module, type DynamicModule } from '@nestjs/common';
import { providersWhenUsed } from '../server/configured.providers.js';
import { WorkflowReceiptSweeper } from './workflow-receipt.sweeper.js';
import { WorkflowRetentionSweeper } from './workflow-retention.sweeper.js';

/**
 * The sweepers of one McpModule: retention of instances (built only with `retention.finishedMs`
 * or `retention.idleHandleMs`) and of the receipts of keyed calls (only on a store that keeps them).
 */
@Module({})
export class McpRetentionModule {
  /** The sweepers on the McpModule's options and core modules. */
  static register(options: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpRetentionModule,
      imports: [options, core],
      providers: [
        ...providersWhenUsed('retention', [WorkflowRetentionSweeper]),
        ...providersWhenUsed('receipts', [WorkflowReceiptSweeper]),
      ],
    };
  }
}
