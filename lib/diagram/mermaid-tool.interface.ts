/**
 * A tool as `toMermaid` reads it: its name and its part in a workflow, written by hand for a
 * diagram in docs or tests (the module's diagram resources pass the tools a caller may use).
 */
export interface McpMermaidTool {
  /** The tool name, shown on the transitions the tool fires. */
  name: string;
  /**
   * Its part in a workflow: `'transition'`, callable in `states` (and their descendants), sends
   * `event` after a successful call; `'start'` creates an instance in the initial state and
   * sends `event` there. A tool of any other kind fires nothing.
   */
  role: {
    readonly kind: string;
    readonly machine?: string;
    readonly states?: readonly string[];
    readonly event?: string;
    /** A call that may wait for a second person's approval (`@McpApproval`): where it waits, and the tools that decide it. */
    readonly approval?: { readonly waitIn: string; readonly approve: string; readonly reject: string };
  };
}
