/** Percentiles and the plain-text tables the benchmark prints. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface Latencies {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
}

export function summarise(samples: readonly number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export const ms = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(1)} ms`);
export const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
