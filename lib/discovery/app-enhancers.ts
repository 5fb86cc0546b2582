import { Injectable } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { CUSTOM_ROUTE_ARGS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA } from '../nest-internals.js';

/** A parameter as Nest declares it under a method's route-args metadata key. */
interface DeclaredParam {
  pipes?: unknown[];
}

const declares = (key: string, target: object) => ((Reflect.getMetadata(key, target) as unknown[] | undefined) ?? []).length > 0;

/**
 * Which of the app's Nest enhancers apply to a handler method, read where Nest reads them
 * when it builds the method's pipeline: the application's global ones (static and
 * request-scoped, `APP_GUARD`-style providers among them), those on the method's class and
 * those on the method itself.
 */
@Injectable()
export class McpAppEnhancers {
  constructor(private readonly config: ApplicationConfig) {}

  /** Whether any interceptor of the app applies to `method` of `metatype`. */
  intercepts(metatype: Function, method: Function): boolean {
    const global = this.config.getGlobalInterceptors().length + this.config.getGlobalRequestInterceptors().length > 0;
    return global || declares(INTERCEPTORS_METADATA, metatype) || declares(INTERCEPTORS_METADATA, method);
  }

  /**
   * Whether nothing of the app's pipeline applies to `method` of `metatype`: no guard, no
   * interceptor, no pipe (global, on the class, on the method or on one of its parameters
   * declared under `metadataKey`), and no custom parameter decorator, whose factory only
   * Nest's pipeline runs. Exception filters are not asked: they apply around either way.
   */
  noneApply(metatype: Function, method: Function, methodName: string, metadataKey: string): boolean {
    const { config } = this;
    const global =
      config.getGlobalGuards().length +
      config.getGlobalRequestGuards().length +
      config.getGlobalPipes().length +
      config.getGlobalRequestPipes().length;
    if (global > 0 || this.intercepts(metatype, method)) return false;
    if ([GUARDS_METADATA, PIPES_METADATA].some((key) => declares(key, metatype) || declares(key, method))) return false;
    const params = (Reflect.getMetadata(metadataKey, metatype, methodName) ?? {}) as Record<string, DeclaredParam>;
    return Object.entries(params).every(([key, param]) => !key.includes(CUSTOM_ROUTE_ARGS_METADATA) && (param.pipes ?? []).length === 0);
  }
}
