/**
 * The deployment files as data for the static deploy tests (there is no Docker engine here): the
 * compose file parsed with its YAML anchors merged, its port and volume entries in both compose
 * syntaxes, and the final stage of the Dockerfile as a list of instructions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export type PortEntry =
  string | number | { target: number | string; published?: number | string; host_ip?: string };
export type VolumeEntry = string | { type?: string; source?: string; target: string };

export interface Service {
  image?: string;
  build?: string;
  command?: string[] | string;
  entrypoint?: string[] | string;
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: PortEntry[];
  volumes?: VolumeEntry[];
  profiles?: string[];
  networks?: string[];
  security_opt?: string[];
  restart?: string;
}

export interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, unknown>;
}

export const readText = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

export function loadCompose(text = readText('docker-compose.yml')): ComposeFile {
  return parse(text, { merge: true }) as ComposeFile;
}

/** A published port: the host address it binds (undefined = every interface) and both port numbers. */
export interface PublishedPort {
  hostIp: string | undefined;
  published: string | undefined;
  target: string;
}

/** Compose's short (`[ip:][published:]target[/proto]`, IPv6 in brackets) and long port syntaxes. */
export function parsePort(entry: PortEntry): PublishedPort {
  if (typeof entry === 'object') {
    return {
      hostIp: entry.host_ip,
      published: entry.published === undefined ? undefined : String(entry.published),
      target: String(entry.target),
    };
  }
  const spec = String(entry).replace(/\/(tcp|udp)$/, '');
  const ipv6 = /^\[([^\]]+)\]:(.*)$/.exec(spec);
  const parts = ipv6 ? [ipv6[1]!, ...ipv6[2]!.split(':')] : spec.split(':');
  const target = parts.pop()!;
  const published = parts.pop();
  return { hostIp: parts.pop(), published, target };
}

export const isLoopback = (ip: string | undefined): boolean =>
  ip !== undefined && (/^127\.\d+\.\d+\.\d+$/.test(ip) || ip === '::1');

/** A volume entry's source and mount path; `named` when the source is a top-level named volume. */
export function parseVolume(
  entry: VolumeEntry,
  namedVolumes: string[],
): { source: string; target: string; named: boolean } {
  const { source, target } =
    typeof entry === 'object'
      ? { source: entry.source ?? '', target: entry.target }
      : (() => {
          const [src, tgt] = entry.split(':');
          return { source: src!, target: tgt! };
        })();
  return { source, target, named: namedVolumes.includes(source) };
}

/** `${VAR:?message}`: the variable that must be set, or undefined when the value is anything else. */
export function requiredVariable(value: string | undefined): string | undefined {
  return /^\$\{(\w+):\?[^}]+\}$/.exec(value ?? '')?.[1];
}

export interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions of the Dockerfile's last stage (the runtime image), continuation lines joined. */
export function finalStage(text = readText('Dockerfile')): Instruction[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const instructions = lines.map((l) => {
    const [keyword, ...rest] = l.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
  });
  const lastFrom = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  return instructions.slice(lastFrom);
}
