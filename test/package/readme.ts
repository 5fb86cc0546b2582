import { readFileSync } from 'node:fs';

/** A server entry of a host's configuration file, as the README shows it. */
export type HostEntry = { type?: string; command?: string; args?: string[]; env?: Record<string, string>; url?: string };

/** The section of `file` (the README unless named) under `## <heading>`, up to the next `## ` heading. */
export function readmeSection(heading: string, file = 'README.md'): string {
  const readme = readFileSync(file, 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) {
    throw new Error(`${file} has no "## ${heading}" section`);
  }
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The code block of `text` whose first line is `firstLine` (e.g. `// main-stdio.ts`), without its fences. */
export function codeBlock(text: string, firstLine: string): string {
  for (const match of text.matchAll(/```\w*\n([^]*?)```/g)) {
    if (match[1].startsWith(`${firstLine}\n`)) {
      return match[1];
    }
  }
  throw new Error(`no code block starts with "${firstLine}"`);
}

/** The page the README links for connecting hosts: the stdio entry point and each host's entry. */
export const HOSTS_PAGE = 'docs/hosts.md';

/** Each host docs/hosts.md names in bold, with its JSON block parsed. */
export function hostConfigurations(): Record<string, unknown> {
  const configurations: Record<string, unknown> = {};
  for (const match of readmeSection('Connect a host', HOSTS_PAGE).matchAll(/\*\*([^*]+)\*\* \([^]*?```json\n([^]*?)```/g)) {
    configurations[match[1]] = JSON.parse(match[2]);
  }
  return configurations;
}

/**
 * The Quick start's files by name: each ```ts block whose first line is a comment naming a
 * file (`// invoice.tools.ts: …`).
 */
export function quickStartFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const match of readmeSection('Quick start').matchAll(/```ts\n(\/\/ ([\w.-]+\.ts)\b[^\n]*\n[^]*?)```/g)) {
    files[match[2]] = match[1];
  }
  return files;
}
