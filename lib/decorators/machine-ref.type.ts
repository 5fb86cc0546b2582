/** A machine as decorators name it: the value `defineMachine` returned, or its id. */
export type McpMachineRef = { readonly id: string } | string;
