/** What a completer knows: the other arguments already filled in (prompt arguments or URI template variables). */
export interface McpCompletionContext {
  arguments: Record<string, string>;
}

/**
 * Suggests values for one argument of a prompt or one variable of a resource template, from
 * what the user typed so far (`completion/complete`). At most 100 values are sent.
 */
export type McpCompleter = (value: string, context: McpCompletionContext) => string[] | Promise<string[]>;
