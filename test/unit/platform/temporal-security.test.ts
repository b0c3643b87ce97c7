/**
 * The Temporal security settings (platform/temporal-security.ts) as Temporal's clients read them: when TLS
 * is on, what the files become, and a sentence naming the variable for every mistake.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from '../../../platform/env';
import { z } from 'zod';
import {
  describeTemporalSecurity,
  temporalSecurity,
  temporalSecurityConfigShape,
  TemporalSecurityError,
} from '../../../platform/temporal-security';
import { ConfigError } from '../../../platform/env';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-tls-unit-'));
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
};
const ca = file('ca.pem', CERT);
const cert = file('client.pem', CERT);
const key = file('client.key', KEY);
const ecKey = file('client-ec.key', '-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n');
const notPem = file('not.pem', 'hello');

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const parse = (env: Record<string, string>) => parseEnv(z.object(temporalSecurityConfigShape), env);

describe('when TLS is on', () => {
  test.each<[string, Record<string, string>, boolean]>([
    ['nothing set: plaintext', {}, false],
    ['TEMPORAL_TLS=true alone: the system CAs', { TEMPORAL_TLS: 'true' }, true],
    ['an API key implies TLS', { TEMPORAL_API_KEY: 'k' }, true],
    ['a CA file implies TLS', { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca }, true],
    ['a server name implies TLS', { TEMPORAL_TLS_SERVER_NAME: 'temporal.test' }, true],
    [
      'a client certificate implies TLS',
      { TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key },
      true,
    ],
    [
      'TEMPORAL_TLS=false wins over a CA file',
      { TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca },
      false,
    ],
  ])('%s', (_name, env, on) => {
    expect(temporalSecurity(parse(env)).tls !== undefined).toBe(on);
  });
});

test('the files become the connection options; the API key rides along', () => {
  const sec = temporalSecurity(
    parse({
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
      TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: ecKey,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
      TEMPORAL_API_KEY: 'secret-key',
    }),
  );
  expect(sec.tls?.serverNameOverride).toBe('temporal.test');
  expect(sec.tls?.serverRootCACertificate?.toString()).toBe(CERT);
  expect(sec.tls?.clientCertPair?.crt.toString()).toBe(CERT);
  expect(sec.tls?.clientCertPair?.key.toString()).toContain('EC PRIVATE KEY');
  expect(sec.apiKey).toBe('secret-key');
  // The start-up line says what is on and never the key.
  expect(describeTemporalSecurity(sec)).toBe('TLS, own CA, client certificate, API key');
  expect(describeTemporalSecurity(sec)).not.toContain('secret-key');
  expect(describeTemporalSecurity(temporalSecurity(parse({})))).toBe('plaintext');
});

describe('mistakes stop the process with a sentence naming the variable', () => {
  test.each<[string, Record<string, string>, string]>([
    [
      'a certificate without its key',
      { TEMPORAL_TLS_CLIENT_CERT_PATH: cert },
      'TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH: a client certificate needs its key.',
    ],
    [
      'a key without its certificate',
      { TEMPORAL_TLS_CLIENT_KEY_PATH: key },
      'TEMPORAL_TLS_CLIENT_KEY_PATH is set without TEMPORAL_TLS_CLIENT_CERT_PATH: a client key needs its certificate.',
    ],
    [
      'an API key with TLS turned off',
      { TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' },
      'TEMPORAL_TLS is false but TEMPORAL_API_KEY is set: an API key is only sent over TLS.',
    ],
    [
      'a missing CA file',
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'nope.pem') },
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read ${path.join(dir, 'nope.pem')} (ENOENT).`,
    ],
    [
      'a CA file that is not PEM',
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: notPem },
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH: ${notPem} is not a PEM certificate.`,
    ],
    [
      'a key file holding a certificate',
      { TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: cert },
      `TEMPORAL_TLS_CLIENT_KEY_PATH: ${cert} is not a PEM private key.`,
    ],
  ])('%s', (_name, env, message) => {
    let thrown: unknown;
    try {
      temporalSecurity(parse(env));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TemporalSecurityError);
    expect(thrown).toBeInstanceOf(ConfigError); // printed alone by the processes
    expect((thrown as Error).message).toBe(message);
  });

  test('a bad TEMPORAL_TLS value is refused by the schema', () => {
    expect(() => parse({ TEMPORAL_TLS: 'maybe' })).toThrow(/TEMPORAL_TLS/);
  });
});
