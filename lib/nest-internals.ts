/**
 * Every import of Nest's internals (paths below the packages' entry points) the module makes:
 * the one file to check when `@nestjs/common` or `@nestjs/core` moves. Everything else imports
 * Nest through its public entry points.
 */
export {
  CUSTOM_ROUTE_ARGS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
export { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
export type { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
export { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
export type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
export type { Module as NestModuleRef } from '@nestjs/core/injector/module.js';
