/**
 * A self-made certificate authority for the TLS tests: a CA, a server certificate for `temporal.test`,
 * `localhost` and 127.0.0.1, a client certificate, and a second CA that signed nothing of these (the
 * "wrong CA"). Made with the openssl command line, which the tests need (they fail without it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCerts {
  dir: string;
  ca: string;
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`,
  ]); // prettier-ignore
}

function signed(dir: string, name: string, subject: string, ext: string): void {
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject,
  ]); // prettier-ignore
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
    '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`,
  ]); // prettier-ignore
}

/** Writes the certificates into `dir` (created if needed) and returns their paths. */
export function makeTestCerts(dir: string): TestCerts {
  fs.mkdirSync(dir, { recursive: true });
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  signed(
    dir,
    'server',
    '/CN=temporal.test',
    'subjectAltName=DNS:temporal.test,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  signed(dir, 'client', '/CN=railyard-worker', 'extendedKeyUsage=clientAuth\n');
  const at = (f: string) => path.join(dir, f);
  return {
    dir,
    ca: at('ca.pem'),
    otherCa: at('other-ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
  };
}
