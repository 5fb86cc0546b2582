import { ConfigurableModuleBuilder } from '@nestjs/common';
import { MCP_MODULE_OPTIONS as OPTIONS_TOKEN, type McpModuleOptions } from './options/mcp-module-options.interface.js';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp', optionsInjectionToken: OPTIONS_TOKEN })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMcpOptions')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

/** Options of `McpModule.forRootAsync` (useFactory, useClass or useExisting). */
export type McpModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE;

/** A class that builds the module options, for `forRootAsync({ useClass })`. */
export interface McpOptionsFactory {
  createMcpOptions(): McpModuleOptions | Promise<McpModuleOptions>;
}
