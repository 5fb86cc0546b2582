import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleOptions } from './options/mcp-module-options.interface.js';

const definition = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMcpOptions')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS } = definition;

/** Options of `McpModule.forRootAsync` (useFactory, useClass or useExisting). */
export type McpModuleAsyncOptions = typeof definition.ASYNC_OPTIONS_TYPE;

/** A class that builds the module options, for `forRootAsync({ useClass })`. */
export interface McpOptionsFactory {
  createMcpOptions(): McpModuleOptions | Promise<McpModuleOptions>;
}
