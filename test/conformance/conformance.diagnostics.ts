import { Injectable } from '@nestjs/common';
import { CreateMessageResultSchema, ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpTool, McpArgs, McpContext, type McpToolContext } from '../../lib/index.js';

/** The `json_schema_2020_12_tool` arguments, whose JSON Schema keeps the 2020-12 keywords the suite looks for. */
const ContactSchema = z
  .strictObject({
    name: z.string().optional(),
    address: z
      .object({ street: z.string().optional(), city: z.string().optional() })
      .meta({ id: 'address', $anchor: 'addressDef' })
      .optional(),
    contactMethod: z.enum(['phone', 'email']).optional(),
    phone: z.string().optional(),
    email: z.string().optional(),
  })
  // zod has no keywords for these; the refinement below checks what they say.
  .meta({
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
  })
  .superRefine((contact, ctx) => {
    const needed = contact.contactMethod === 'phone' ? 'phone' : 'email';
    if (contact.phone === undefined && contact.email === undefined) {
      ctx.addIssue({ code: 'custom', message: 'phone or email is required' });
    } else if (contact[needed] === undefined) {
      ctx.addIssue({ code: 'custom', path: [needed], message: `${needed} is required` });
    }
  });

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The diagnostic tools the suite's 2026-07-28 scenarios look for in `tools/list`
 * (`server-stateless`, `json-schema-2020-12`, `http-custom-header-server-validation`), named
 * and shaped as they say. The list-changing hooks (`test_trigger_tool_change`,
 * `test_trigger_prompt_change`) are missing on purpose: the lists are fixed at bootstrap.
 */
@Injectable()
export class ConformanceDiagnostics {
  @McpTool({ name: 'test_missing_capability', description: 'Asks the client for a completion, which needs its sampling capability' })
  async missingCapability(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    const result = await ctx.extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'capability probe' } }], maxTokens: 10 } },
      CreateMessageResultSchema,
    );
    return text(`LLM response: ${result.content.type === 'text' ? result.content.text : `(${result.content.type})`}`);
  }

  @McpTool({ name: 'test_streaming_elicitation', description: 'Asks the user to confirm, and says whether the question went out' })
  async streamingElicitation(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    try {
      const result = await ctx.extra.sendRequest(
        { method: 'elicitation/create', params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
        ElicitResultSchema,
      );
      return text(`Elicitation completed: action=${result.action}`);
    } catch (error) {
      // A 2026-07-28 request has no channel for a server-to-client request: nothing went out.
      return text(`Elicitation not sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  @McpTool({ name: 'test_logging_tool', description: 'Sends a log message at info level' })
  async logging(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    await ctx.log('info', 'test_logging_tool ran');
    return text('Logged at info level, when the client asked for it.');
  }

  @McpTool({ name: 'json_schema_2020_12_tool', description: 'Tool with JSON Schema 2020-12 features', inputSchema: ContactSchema })
  contact(@McpArgs() contact: z.infer<typeof ContactSchema>): CallToolResult {
    return text(`Contact: ${JSON.stringify(contact)}`);
  }

  @McpTool({
    name: 'test_custom_header',
    description: 'Echoes a region that the client also sends as the Mcp-Param-Region header',
    inputSchema: z.object({ region: z.string().describe('Region to echo').meta({ 'x-mcp-header': 'Region' }) }),
  })
  customHeader(@McpArgs('region') region: string): CallToolResult {
    return text(`region=${region}`);
  }
}
