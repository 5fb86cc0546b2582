/** Bytes as MB with one decimal. */
export function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** Prints a Markdown table: the first column left-aligned, the others right-aligned. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  console.log(line(header));
  console.log(
    `|${widths.map((width, column) => (column === 0 ? ':' : '-').padEnd(width + 1, '-') + (column === 0 ? '-' : ':')).join('|')}|`,
  );
  for (const row of rows) console.log(line(row));
}
