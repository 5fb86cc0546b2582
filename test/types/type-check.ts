import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = process.cwd();

/** The compiler options of `tsconfig.json`, without emitting. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true };
}

export interface Reported {
  line: number;
  message: string;
}

let previous: ts.Program | undefined;

/**
 * Type-checks `files` (absolute path → text; other files come from disk) and returns the
 * errors by file. Each program reuses what the previous one parsed (lib, node_modules).
 */
export function typeErrors(files: Record<string, string>): Record<string, Reported[]> {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => files[resolve(fileName)] ?? readFile(fileName);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => resolve(fileName) in files || fileExists(fileName);
  const directoryExists = host.directoryExists!.bind(host);
  host.directoryExists = (name) => Object.keys(files).some((file) => file.startsWith(`${resolve(name)}/`)) || directoryExists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = files[resolve(fileName)];
    return text === undefined
      ? (previous?.getSourceFile(fileName) ?? getSourceFile(fileName, languageVersion, onError, shouldCreate))
      : ts.createSourceFile(fileName, text, languageVersion, true);
  };
  const program = ts.createProgram(Object.keys(files), options, host, previous);
  previous = program;
  const errors: Record<string, Reported[]> = {};
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const fileName = diagnostic.file ? resolve(diagnostic.file.fileName) : '(global)';
    const line = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line + 1 : 0;
    (errors[fileName] ??= []).push({ line, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n') });
  }
  return errors;
}
