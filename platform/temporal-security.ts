/**
 * How railyard's processes reach a secured Temporal: TLS with the server's CA, mTLS client certificates
 * and API keys (Temporal Cloud takes either an API key or a client certificate). The variables are
 * Temporal's own (docs.temporal.io "Client environment configuration"), so the settings an operator
 * already uses with the Temporal CLI work unchanged; only the file forms are read (`*_PATH`), since
 * Kubernetes and compose mount secrets as files.
 *
 * Rules, as Temporal's clients apply them:
 * - TLS is on when `TEMPORAL_TLS=true`, or when any TLS file, a server name or an API key is given;
 *   `TEMPORAL_TLS=false` turns it off, and is refused beside an API key (the key would travel in clear).
 * - A client certificate needs its key and the key its certificate.
 * - Every file is read once at start; one that is missing or not PEM stops the process with a sentence
 *   naming the variable (never its content).
 */
import fs from 'node:fs';
import { z } from 'zod';
import { ConfigError, envBool } from './env';

export const temporalSecurityConfigShape = {
  TEMPORAL_TLS: envBool.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).max(253).optional(),
  TEMPORAL_API_KEY: z.string().min(1).max(8192).optional(),
};

export type TemporalSecuritySettings = {
  [K in keyof typeof temporalSecurityConfigShape]?: z.infer<(typeof temporalSecurityConfigShape)[K]>;
};

/** The part of Temporal's connection options (client and worker alike) that these settings make. */
export interface TemporalSecurity {
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
  apiKey?: string;
}

/** A ConfigError: the processes print its sentence alone and stop. */
export class TemporalSecurityError extends ConfigError {}

function readPem(variable: string, file: string, kind: 'CERTIFICATE' | 'PRIVATE KEY'): Buffer {
  let content: Buffer;
  try {
    content = fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new TemporalSecurityError(`${variable}: cannot read ${file} (${code}).`);
  }
  // "PRIVATE KEY" also matches "RSA PRIVATE KEY" and "EC PRIVATE KEY".
  if (!content.includes(`-----BEGIN `) || !content.includes(`${kind}-----`)) {
    throw new TemporalSecurityError(`${variable}: ${file} is not a PEM ${kind.toLowerCase()}.`);
  }
  return content;
}

/** The connection options of these settings; throws TemporalSecurityError naming the variable. */
export function temporalSecurity(s: TemporalSecuritySettings): TemporalSecurity {
  const cert = s.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const key = s.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if ((cert === undefined) !== (key === undefined)) {
    throw new TemporalSecurityError(
      cert === undefined
        ? 'TEMPORAL_TLS_CLIENT_KEY_PATH is set without TEMPORAL_TLS_CLIENT_CERT_PATH: a client key needs its certificate.'
        : 'TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH: a client certificate needs its key.',
    );
  }
  const implied =
    cert !== undefined ||
    s.TEMPORAL_TLS_SERVER_CA_CERT_PATH !== undefined ||
    s.TEMPORAL_TLS_SERVER_NAME !== undefined ||
    s.TEMPORAL_API_KEY !== undefined;
  if (s.TEMPORAL_TLS === false && s.TEMPORAL_API_KEY !== undefined) {
    throw new TemporalSecurityError(
      'TEMPORAL_TLS is false but TEMPORAL_API_KEY is set: an API key is only sent over TLS.',
    );
  }
  const tlsOn = s.TEMPORAL_TLS ?? implied;
  if (!tlsOn) return {};
  const tls: NonNullable<TemporalSecurity['tls']> = {};
  if (s.TEMPORAL_TLS_SERVER_NAME !== undefined) tls.serverNameOverride = s.TEMPORAL_TLS_SERVER_NAME;
  if (s.TEMPORAL_TLS_SERVER_CA_CERT_PATH !== undefined) {
    tls.serverRootCACertificate = readPem(
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      s.TEMPORAL_TLS_SERVER_CA_CERT_PATH,
      'CERTIFICATE',
    );
  }
  if (cert !== undefined && key !== undefined) {
    tls.clientCertPair = {
      crt: readPem('TEMPORAL_TLS_CLIENT_CERT_PATH', cert, 'CERTIFICATE'),
      key: readPem('TEMPORAL_TLS_CLIENT_KEY_PATH', key, 'PRIVATE KEY'),
    };
  }
  return { tls, ...(s.TEMPORAL_API_KEY !== undefined ? { apiKey: s.TEMPORAL_API_KEY } : {}) };
}

/** One line for the start-up log: what is on, never a secret. */
export function describeTemporalSecurity(sec: TemporalSecurity): string {
  if (!sec.tls) return 'plaintext';
  const parts = ['TLS'];
  if (sec.tls.serverRootCACertificate) parts.push('own CA');
  if (sec.tls.clientCertPair) parts.push('client certificate');
  if (sec.apiKey) parts.push('API key');
  return parts.join(', ');
}
