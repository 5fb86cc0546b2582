import type { InjectionToken, Provider, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MCP_FEATURE_USE, type McpFeatureUse } from './mcp-feature-use.interface.js';

/**
 * Providers of `types` built only when the option slice under `slice` is set (not `null`):
 * then each is created by the injector with its dependencies (lifecycle hooks included, as any
 * provider's); else each is `null` and nothing of the feature is constructed. This is how a
 * feature stays unbuilt under `forRootAsync`, whose options are known only once its factory ran.
 */
export function providersWhenConfigured(slice: InjectionToken, types: readonly Type[]): Provider[] {
  return types.map((type) => ({
    provide: type,
    useFactory: (options: unknown, moduleRef: ModuleRef) => (options === null ? null : moduleRef.create(type)),
    inject: [slice, ModuleRef],
  }));
}

/**
 * Providers of `types` built only when the module uses `feature` ({@link McpFeatureUse}, decided
 * at startup from the options, the store and the app's handlers); else each is `null`.
 */
export function providersWhenUsed(feature: keyof McpFeatureUse, types: readonly Type[]): Provider[] {
  return types.map((type) => ({
    provide: type,
    useFactory: (use: McpFeatureUse, moduleRef: ModuleRef) => (use[feature] ? moduleRef.create(type) : null),
    inject: [MCP_FEATURE_USE, ModuleRef],
  }));
}
