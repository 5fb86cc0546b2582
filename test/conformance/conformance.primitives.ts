import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { McpPrompt, McpResource, McpArgs } from '../../lib/index.js';
import { TEST_IMAGE_BASE64 } from './conformance.tools.js';

/** The resources the suite's `resources-*` scenarios read and subscribe to, shaped as their requirements say. */
@Injectable()
export class ConformanceResources {
  @McpResource({ name: 'static-text', uri: 'test://static-text', mimeType: 'text/plain', description: 'A static text resource' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({ name: 'static-binary', uri: 'test://static-binary', mimeType: 'image/png', description: 'A static binary resource (a PNG)' })
  staticBinary() {
    return Buffer.from(TEST_IMAGE_BASE64, 'base64');
  }

  @McpResource({ name: 'watched-resource', uri: 'test://watched-resource', mimeType: 'text/plain', description: 'A resource to subscribe to' })
  watched() {
    return 'Watched resource content.';
  }

  @McpResource({
    name: 'template-data',
    uriTemplate: 'test://template/{id}/data',
    mimeType: 'application/json',
    description: 'Data for an id, from a template',
  })
  templateData(@McpArgs('id') id: string) {
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }
}

/** The prompts the suite's `prompts-*` and `completion-complete` scenarios get, shaped as their requirements say. */
@Injectable()
export class ConformancePrompts {
  @McpPrompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    argsSchema: z.object({ arg1: z.string().describe('First test argument'), arg2: z.string().describe('Second test argument') }),
    complete: { arg1: (value) => ['test', 'testing', 'tested'].filter((word) => word.startsWith(value)) },
  })
  withArguments(@McpArgs() args: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
  })
  withEmbeddedResource(@McpArgs('resourceUri') resourceUri: string) {
    return [
      { role: 'user' as const, content: { type: 'resource' as const, resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user' as const, content: { type: 'text' as const, text: 'Please process the embedded resource above.' } },
    ];
  }

  @McpPrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  withImage() {
    return [
      { role: 'user' as const, content: { type: 'image' as const, data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user' as const, content: { type: 'text' as const, text: 'Please analyze the image above.' } },
    ];
  }
}
