import { createHash } from 'node:crypto';
import { z } from 'zod';

/** Where a listed output schema's `$id` starts; the rest is a digest of the schema's JSON. */
const OUTPUT_SCHEMA_ID_PREFIX = 'urn:nestjs-mcp-fsm:output-schema:';

/**
 * A tool's output schema as `tools/list` shows it: the zod schema's JSON Schema with an `$id`
 * named by its content. A validator that keeps compiled schemas by `$id`, as the MCP SDK v1
 * client's Ajv does, compiles it once per client instead of on every `tools/list`; the same
 * schema always has the same `$id`, and a changed one a new `$id`, so no client checks a result
 * against a stale schema.
 */
export function outputJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>;
  const digest = createHash('sha256').update(JSON.stringify(json)).digest('base64url').slice(0, 32);
  return { $id: `${OUTPUT_SCHEMA_ID_PREFIX}${digest}`, ...json };
}
