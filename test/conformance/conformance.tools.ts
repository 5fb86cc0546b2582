import { Injectable } from '@nestjs/common';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CallToolResult,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpTool, McpArgs, McpContext, type McpToolContext } from '../../lib/index.js';

/** A 1x1 red PNG, as the suite's reference server sends it. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file. */
const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The pause between notifications the suite asks for, so they arrive while the call runs. */
const STEP_MS = 50;

const pause = () => new Promise((resolve) => setTimeout(resolve, STEP_MS));

/**
 * The tools the conformance suite's server scenarios call (`tools-call-*`,
 * `elicitation-sep*`), named and shaped as the scenarios' requirements say. They are plain
 * unbound tools: the suite checks the protocol, not workflow gating.
 */
@Injectable()
export class ConformanceTools {
  @McpTool({ name: 'test_simple_text', description: 'Tests simple text content response' })
  simpleText(): CallToolResult {
    return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
  }

  @McpTool({ name: 'test_image_content', description: 'Tests image content response' })
  image(): CallToolResult {
    return { content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] };
  }

  @McpTool({ name: 'test_audio_content', description: 'Tests audio content response' })
  audio(): CallToolResult {
    return { content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] };
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response' })
  embeddedResource(): CallToolResult {
    return {
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
        },
      ],
    };
  }

  @McpTool({ name: 'test_multiple_content_types', description: 'Tests response with text, image and resource content' })
  multipleContentTypes(): CallToolResult {
    return {
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    };
  }

  @McpTool({ name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution' })
  async withLogging(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    await ctx.log('info', 'Tool execution started');
    await pause();
    await ctx.log('info', 'Tool processing data');
    await pause();
    await ctx.log('info', 'Tool execution completed');
    return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
  }

  @McpTool({ name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications' })
  async withProgress(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    await ctx.reportProgress(0, 100);
    await pause();
    await ctx.reportProgress(50, 100);
    await pause();
    await ctx.reportProgress(100, 100);
    return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
  }

  @McpTool({ name: 'test_error_handling', description: 'Tests error response handling' })
  errorHandling(): never {
    // The module turns a thrown error into an isError result with an error id (and logs it).
    throw new Error('This tool intentionally returns an error for testing');
  }

  @McpTool({
    name: 'test_sampling',
    description: 'Tests server-initiated sampling (LLM completion request)',
    inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
  })
  async sampling(@McpArgs('prompt') prompt: string, @McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    const result = await ctx.extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
      },
      CreateMessageResultSchema,
    );
    const text = result.content.type === 'text' ? result.content.text : `(${result.content.type})`;
    return { content: [{ type: 'text', text: `LLM response: ${text}` }] };
  }

  @McpTool({
    name: 'test_elicitation',
    description: 'Tests server-initiated elicitation (user input request)',
    inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
  })
  elicitation(@McpArgs('message') message: string, @McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    return this.elicit(ctx, 'User response', {
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
  }

  @McpTool({ name: 'test_elicitation_sep1034_defaults', description: 'Tests elicitation with default values (SEP-1034)' })
  elicitationDefaults(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    return this.elicit(ctx, 'Elicitation completed', {
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
  }

  @McpTool({ name: 'test_elicitation_sep1330_enums', description: 'Tests elicitation with enum schemas (SEP-1330)' })
  elicitationEnums(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    const titled = (prefix: string, noun: string) =>
      ['First', 'Second', 'Third'].map((ordinal, index) => ({ const: `${prefix}${index + 1}`, title: `${ordinal} ${noun}` }));
    return this.elicit(ctx, 'Elicitation completed', {
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('value', 'Option') },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled('value', 'Choice') },
          },
        },
        required: [],
      },
    });
  }

  private async elicit(ctx: McpToolContext, label: string, params: ElicitRequest['params']): Promise<CallToolResult> {
    const result = await ctx.extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
    return { content: [{ type: 'text', text: `${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}` }] };
  }
}
