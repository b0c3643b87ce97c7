/**
 * GitHub App settings (docs/github.md), shared by the api and the worker: the schema entries every
 * process spreads into its own, and `gitHubAppSettingsOf`, which turns them into one settings object.
 *
 * Rules:
 * - Everything is optional: without RAILYARD_GITHUB_APP_ID GitHub is off and nothing changes.
 * - A half-configured app stops the process with a sentence naming the missing or surplus variable:
 *   an app id needs a private key (exactly one of RAILYARD_GITHUB_PRIVATE_KEY and
 *   RAILYARD_GITHUB_PRIVATE_KEY_FILE) and a webhook secret; a key or secret without an app id is an
 *   error too, not silently ignored.
 * - The key and the secret never fail the zod schema (whose messages quote the value); they are
 *   checked here, and no message ever contains them.
 * - The App's OAuth client (RAILYARD_GITHUB_CLIENT_ID and RAILYARD_GITHUB_CLIENT_SECRET) comes as a
 *   pair or not at all; without it organisations cannot prove they administer an installation, so
 *   only the operator links installations (docs/adr/0015-installation-linking-proof.md).
 */
import fs from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, envInt } from '../../platform/env';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
export const DEFAULT_GITHUB_HOST = 'github.com';
export const DEFAULT_GITHUB_RECONCILE_MINUTES = 5;
/**
 * Writes per minute per installation left to showing PRs (comments, check runs): half of GitHub's 80
 * content-creating requests a minute, so the queue's own writes (landings, draft PRs) keep the rest.
 */
export const DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE = 40;

const hostName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d{1,5})?$/i, 'must be a host name such as github.com');

export const gitHubConfigShape = {
  RAILYARD_GITHUB_APP_ID: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 53 - 1)
    .optional(),
  /** The PEM itself (a literal `\n` in a one-line value is read as a line break). Never quoted. */
  RAILYARD_GITHUB_PRIVATE_KEY: z.string().optional(),
  RAILYARD_GITHUB_PRIVATE_KEY_FILE: z.string().min(1).optional(),
  /** Verifies X-Hub-Signature-256 of deliveries. Never quoted. */
  RAILYARD_GITHUB_WEBHOOK_SECRET: z.string().optional(),
  RAILYARD_GITHUB_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://github.example.com/api/v3' })
    .default(DEFAULT_GITHUB_API_URL),
  /** The repository host (`repo.host`) whose repositories this app serves. */
  RAILYARD_GITHUB_HOST: hostName.default(DEFAULT_GITHUB_HOST),
  /** Where repositories are cloned from (`<url>/<owner>/<name>.git`); default `https://<host>`. */
  RAILYARD_GITHUB_GIT_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://github.example.com' })
    .optional(),
  /** Prefix of test branches on GitHub, unless a queue sets its own. */
  RAILYARD_GITHUB_TEST_BRANCH_PREFIX: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}\/$/,
      'must be a branch prefix ending in "/", such as trunk-merge/',
    )
    .default('trunk-merge/'),
  /** Period of the reconciliation Schedule (worker): redelivery, unhandled deliveries, queue hints. */
  RAILYARD_GITHUB_RECONCILE_MINUTES: envInt(1, 1440).default(DEFAULT_GITHUB_RECONCILE_MINUTES),
  /** The App's OAuth client id ("Client ID" on its settings page): user access tokens for linking. */
  RAILYARD_GITHUB_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, "must be the client id shown on the GitHub App's settings page")
    .optional(),
  /** The App's OAuth client secret. Never quoted. */
  RAILYARD_GITHUB_CLIENT_SECRET: z.string().optional(),
  /** Where GitHub's web pages and OAuth endpoints are (`/login/oauth/…`); default `https://<host>`. */
  RAILYARD_GITHUB_WEB_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://github.example.com' })
    .optional(),
  /** Pace of the PR presenter's writes, per worker and installation (GitHub's secondary limits). */
  RAILYARD_GITHUB_PRESENTATION_WRITES_PER_MINUTE: envInt(1, 600).default(
    DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE,
  ),
};

type GitHubConfig = z.infer<z.ZodObject<typeof gitHubConfigShape>>;

export interface GitHubAppSettings {
  appId: number;
  /** PEM (PKCS#1 as GitHub hands it out, or PKCS#8). */
  privateKey: string;
  webhookSecret: string;
  /** REST base URL without a trailing slash (GitHub Enterprise Server: https://<host>/api/v3). */
  apiUrl: string;
  /** `repo.host` of the repositories this app serves, lower-case. */
  host: string;
  /** Git remote base without a trailing slash: `<gitUrl>/<owner>/<name>.git`. */
  gitUrl: string;
  /** Test branches on GitHub start with it (a queue's testBranchPrefix overrides it). */
  testBranchPrefix: string;
  /** Minutes between two runs of the GitHub reconciliation (worker/github-reconciliation-schedule.ts). */
  reconcileMinutes: number;
  /** Writes per minute per installation the PR presenter may make (its own lane, rest-client.ts). */
  presentationWritesPerMinute: number;
  /** The App's OAuth client, with which organisations prove they administer an installation; null: none. */
  oauth: GitHubOAuthSettings | null;
}

export interface GitHubOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** GitHub's web base without a trailing slash (`<webUrl>/login/oauth/authorize`). */
  webUrl: string;
}

/**
 * The app's settings, or null when GitHub is off. Throws ConfigError for a half-configured app;
 * `readFile` is for tests.
 */
export function gitHubAppSettingsOf(
  config: GitHubConfig,
  readFile: (file: string) => string = (file) => fs.readFileSync(file, 'utf8'),
): GitHubAppSettings | null {
  const appId = config.RAILYARD_GITHUB_APP_ID;
  const inline = config.RAILYARD_GITHUB_PRIVATE_KEY;
  const file = config.RAILYARD_GITHUB_PRIVATE_KEY_FILE;
  const secret = config.RAILYARD_GITHUB_WEBHOOK_SECRET;
  if (appId === undefined) {
    const surplus = [
      inline === undefined ? null : 'RAILYARD_GITHUB_PRIVATE_KEY',
      file === undefined ? null : 'RAILYARD_GITHUB_PRIVATE_KEY_FILE',
      secret === undefined ? null : 'RAILYARD_GITHUB_WEBHOOK_SECRET',
      config.RAILYARD_GITHUB_CLIENT_ID === undefined ? null : 'RAILYARD_GITHUB_CLIENT_ID',
      config.RAILYARD_GITHUB_CLIENT_SECRET === undefined ? null : 'RAILYARD_GITHUB_CLIENT_SECRET',
    ].filter((name) => name !== null);
    if (surplus.length > 0)
      throw new ConfigError(
        `Invalid configuration: ${surplus.join(', ')} ${surplus.length > 1 ? 'are' : 'is'} set but RAILYARD_GITHUB_APP_ID is not; set the app id too, or unset ${surplus.length > 1 ? 'them' : 'it'} to leave GitHub off.`,
      );
    return null;
  }
  if (inline !== undefined && file !== undefined)
    throw new ConfigError(
      'Invalid configuration: both RAILYARD_GITHUB_PRIVATE_KEY and RAILYARD_GITHUB_PRIVATE_KEY_FILE are set; set only one.',
    );
  if (inline === undefined && file === undefined)
    throw new ConfigError(
      "Invalid configuration: RAILYARD_GITHUB_APP_ID is set but no private key is; set RAILYARD_GITHUB_PRIVATE_KEY_FILE (or RAILYARD_GITHUB_PRIVATE_KEY) to the app's PEM key.",
    );
  if (secret === undefined)
    throw new ConfigError(
      'Invalid configuration: RAILYARD_GITHUB_APP_ID is set but RAILYARD_GITHUB_WEBHOOK_SECRET is not; set it to the webhook secret of the GitHub App.',
    );
  let privateKey: string;
  if (file !== undefined) {
    try {
      privateKey = readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(
        `Invalid configuration: RAILYARD_GITHUB_PRIVATE_KEY_FILE=${JSON.stringify(file)} cannot be read (${code}).`,
      );
    }
  } else {
    privateKey = inline!;
    // One-line environment files often carry the PEM with literal "\n".
    if (!privateKey.includes('\n')) privateKey = privateKey.replace(/\\n/g, '\n');
  }
  const source = file !== undefined ? 'RAILYARD_GITHUB_PRIVATE_KEY_FILE' : 'RAILYARD_GITHUB_PRIVATE_KEY';
  if (!isRsaPrivateKey(privateKey))
    throw new ConfigError(
      `Invalid configuration: ${source} does not hold a PEM RSA private key (download one under the GitHub App's "Private keys").`,
    );
  const clientId = config.RAILYARD_GITHUB_CLIENT_ID;
  const clientSecret = config.RAILYARD_GITHUB_CLIENT_SECRET;
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new ConfigError(
      `Invalid configuration: ${clientId === undefined ? 'RAILYARD_GITHUB_CLIENT_SECRET' : 'RAILYARD_GITHUB_CLIENT_ID'} is set but ${clientId === undefined ? 'RAILYARD_GITHUB_CLIENT_ID' : 'RAILYARD_GITHUB_CLIENT_SECRET'} is not; set both (the GitHub App's client id and a client secret) or neither.`,
    );
  const oauth =
    clientId === undefined || clientSecret === undefined
      ? null
      : {
          clientId,
          clientSecret,
          webUrl: (
            config.RAILYARD_GITHUB_WEB_URL ?? `https://${config.RAILYARD_GITHUB_HOST.toLowerCase()}`
          ).replace(/\/+$/, ''),
        };
  return {
    appId,
    privateKey,
    webhookSecret: secret,
    apiUrl: config.RAILYARD_GITHUB_API_URL.replace(/\/+$/, ''),
    host: config.RAILYARD_GITHUB_HOST.toLowerCase(),
    gitUrl: (
      config.RAILYARD_GITHUB_GIT_URL ?? `https://${config.RAILYARD_GITHUB_HOST.toLowerCase()}`
    ).replace(/\/+$/, ''),
    testBranchPrefix: config.RAILYARD_GITHUB_TEST_BRANCH_PREFIX,
    reconcileMinutes: config.RAILYARD_GITHUB_RECONCILE_MINUTES,
    presentationWritesPerMinute: config.RAILYARD_GITHUB_PRESENTATION_WRITES_PER_MINUTE,
    oauth,
  };
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey({ key: pem, format: 'pem' }).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}
