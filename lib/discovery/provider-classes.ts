import type { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '../nest-internals.js';

/**
 * The app's providers whose class may hold decorated handlers, each with its class: aliases,
 * factory providers (`inject`) and values without a prototype are skipped. A class provided in
 * several modules comes once per module; the caller keeps the one it serves.
 */
export function* providerClasses(discovery: DiscoveryService): Generator<{ wrapper: InstanceWrapper; metatype: Function }> {
  for (const wrapper of discovery.getProviders()) {
    const metatype = wrapper.metatype as Function | undefined;
    if (metatype && !wrapper.isAlias && !wrapper.inject && metatype.prototype) {
      yield { wrapper, metatype };
    }
  }
}
