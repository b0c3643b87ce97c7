/**
 * What `npm start` prints once everything is up. Its example request must work as printed on a fresh
 * start (a test runs it through bash): it lists the organisation's repositories, which answers 200 with
 * no queue created yet. The API key is read from its file inside the command, so the key itself appears
 * only on an interactive terminal, never in a log the output was redirected to.
 */
import { apiUrl } from '../../platform/public-url';

export interface BannerFacts {
  apiPort: number;
  key: string;
  keyFile: string;
  /** Web UI URL of the Temporal started by npm start; undefined when TEMPORAL_ADDRESS points elsewhere. */
  temporalUi?: string;
  temporalAddress: string;
  /** The terminal sees the output (not a file or a pipe). */
  interactive: boolean;
}

/** Quotes a word for POSIX shells. */
export const shellQuote = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

export function exampleRequest(f: Pick<BannerFacts, 'apiPort' | 'keyFile'>): string {
  return `curl -sf ${apiUrl({ port: f.apiPort })}/v1/repositories -H "x-api-token: $(cat ${shellQuote(f.keyFile)})"`;
}

export function banner(f: BannerFacts): string {
  const base = apiUrl({ port: f.apiPort });
  return [
    '',
    'railyard is running.',
    `  API base URL      ${base}/v1`,
    `  API key (dev)     ${f.interactive ? f.key : `in ${f.keyFile}`}`,
    `  Dashboard         ${base}/ui   (sign in with the API key)`,
    `  API docs          ${base}/v1/docs   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Temporal Web UI   ${f.temporalUi ?? `(external Temporal at ${f.temporalAddress})`}`,
    `  Try               ${exampleRequest(f)}`,
    'Press Ctrl-C to stop everything (or `npm run stop` from another terminal; `npm run status` shows what runs).',
    '',
  ].join('\n');
}
