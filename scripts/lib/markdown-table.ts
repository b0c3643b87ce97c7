/**
 * The markdown table the benchmarks and the fuzzer print: a header, a separator, one line per row,
 * cells unpadded (the output is read as markdown, and it diffs well between runs).
 */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
