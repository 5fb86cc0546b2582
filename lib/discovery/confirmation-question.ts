import { z } from 'zod';
import { checkNumericOption, timerMs } from '../checks/numeric-option.check.js';
import type { McpConfirmMetadata } from '../decorators/confirm.decorator.js';
import type { McpToolConfirmation } from '../registry/mcp-handler-role.js';
import * as messages from './discovery.messages.js';

/** The JSON Schema types an elicitation form field may have. */
const FLAT_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The confirmation of a tool from its `@McpConfirm` metadata, checked once at bootstrap: the
 * message as a function, the `requestedSchema` of the elicitation (a form of flat fields, none
 * for a plain yes), and the wait.
 */
export function confirmationQuestion(source: string, meta: McpConfirmMetadata, defaultTimeoutMs: number): McpToolConfirmation {
  const timeoutMs = checkNumericOption(source, "@McpConfirm's timeoutMs", meta.timeoutMs ?? defaultTimeoutMs, timerMs());
  const { message } = meta;
  return {
    message: typeof message === 'string' ? () => message : (args, ctx) => message(args, ctx as never),
    requestedSchema: meta.schema ? formSchema(source, meta.schema) : { type: 'object', properties: {} },
    schema: meta.schema,
    timeoutMs,
  };
}

/** The zod object as an elicitation form's `requestedSchema`; a field a form cannot show fails bootstrap. */
function formSchema(source: string, schema: z.ZodObject): McpToolConfirmation['requestedSchema'] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const properties = json.properties ?? {};
  for (const [field, property] of Object.entries(properties)) {
    if (!FLAT_TYPES.has(property.type as string) && !Array.isArray(property.enum)) {
      throw new Error(messages.confirmSchemaNotFlat(source, field));
    }
  }
  return {
    type: 'object',
    properties: properties as McpToolConfirmation['requestedSchema']['properties'],
    ...(json.required?.length ? { required: json.required } : {}),
  };
}
