/**
 * A tool as `toMermaid` reads it: its name and its part in a workflow. Every
 * `McpToolDefinition` fits, so the tools of `McpToolRegistry` can be passed as they are.
 */
export interface McpMermaidTool {
  /** The tool name, shown on the transitions the tool fires. */
  name: string;
  /** A bound tool: callable in `states` (and their descendants); a successful call sends `transition`. */
  binding?: { machine: string; states: readonly string[]; transition?: string };
  /** A start tool: it creates an instance in the initial state and sends `transition` there. */
  start?: { machine: string; transition?: string };
}
