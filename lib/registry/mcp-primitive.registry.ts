import { Injectable } from '@nestjs/common';
import type { McpPromptDefinition } from './mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from './mcp-resource-definition.interface.js';

/** A `resources/read` URI matched to the resource that serves it, with the template's variables. */
interface McpResourceMatch {
  resource: McpResourceDefinition;
  args: Record<string, string>;
}

/** The server's prompts and resources, filled once at bootstrap by the explorer. */
@Injectable()
export class McpPrimitiveRegistry {
  private promptList: readonly McpPromptDefinition[] = [];
  private readonly promptsByName = new Map<string, McpPromptDefinition>();
  private resourceList: readonly McpResourceDefinition[] = [];
  private readonly fixedByUri = new Map<string, McpResourceDefinition>();

  /** Adds the discovered prompts and resources (names and URIs are already unique). */
  register(prompts: McpPromptDefinition[], resources: McpResourceDefinition[]): void {
    for (const prompt of prompts) {
      this.promptsByName.set(prompt.name, prompt);
    }
    for (const resource of resources) {
      if (resource.uri !== undefined) {
        this.fixedByUri.set(resource.uri, resource);
      }
    }
    this.promptList = Object.freeze([...this.promptList, ...prompts]);
    this.resourceList = Object.freeze([...this.resourceList, ...resources]);
  }

  prompts(): readonly McpPromptDefinition[] {
    return this.promptList;
  }

  prompt(name: string): McpPromptDefinition | undefined {
    return this.promptsByName.get(name);
  }

  /** Fixed resources and templates, in registration order. */
  resources(): readonly McpResourceDefinition[] {
    return this.resourceList;
  }

  /** The template whose template string is `uriTemplate` (a `completion/complete` reference). */
  template(uriTemplate: string): McpResourceDefinition | undefined {
    return this.resourceList.find((resource) => resource.template?.toString() === uriTemplate);
  }

  /** The resource that serves `uri`: a fixed one with that URI, else the first template that matches it. */
  match(uri: string): McpResourceMatch | undefined {
    const fixed = this.fixedByUri.get(uri);
    if (fixed) {
      return { resource: fixed, args: {} };
    }
    for (const resource of this.resourceList) {
      const variables = resource.template?.match(uri);
      if (variables) {
        const args = Object.fromEntries(
          Object.entries(variables).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
        );
        return { resource, args };
      }
    }
    return undefined;
  }
}
