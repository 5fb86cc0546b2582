/**
 * `nestjs-mcp-fsm/terminus`: `@nestjs/terminus` health indicators of the workflow store, the
 * transition relay and the deadline scheduler, for the app's own health controller (needs the optional peer
 * `@nestjs/terminus`; see docs/observability.md#health).
 */
export { McpStoreHealthIndicator, type McpStoreHealthOptions } from './health/mcp-store.health-indicator.js';
export { McpRelayHealthIndicator, type McpRelayHealthOptions } from './health/mcp-relay.health-indicator.js';
export { McpDeadlineHealthIndicator, type McpDeadlineHealthOptions } from './health/mcp-deadline.health-indicator.js';
