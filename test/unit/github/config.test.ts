/**
 * GitHub App settings (github/app/config.ts): off without an app id, a clear sentence for a
 * half-configured app, and never the key or the webhook secret in a message.
 */
import { z } from 'zod';
import { gitHubAppSettingsOf, gitHubConfigShape } from '../../../github/app/config';
import { parseEnv } from '../../../platform/env';
import { loadApiConfig } from '../../../api/config';
import { loadWorkerConfig } from '../../../worker/config';
import { testAppKey } from '../../support/github-app-stub';

const { privateKey } = testAppKey();
const SECRET = 'whsec-do-not-print-0123456789';
const settingsOf = (env: Record<string, string>, files: Record<string, string> = {}) =>
  gitHubAppSettingsOf(parseEnv(z.object(gitHubConfigShape), env), (file) => {
    const text = files[file];
    if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return text;
  });
const messageOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('no error');
};

test('without an app id GitHub is off', () => {
  expect(settingsOf({})).toBeNull();
  expect(settingsOf({ RAILYARD_GITHUB_API_URL: 'https://ghe.example.com/api/v3' })).toBeNull();
});

test('a complete app: key from the environment or a file, defaults for github.com', () => {
  const base = { RAILYARD_GITHUB_APP_ID: '12', RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET };
  expect(settingsOf({ ...base, RAILYARD_GITHUB_PRIVATE_KEY: privateKey })).toEqual({
    appId: 12,
    privateKey,
    webhookSecret: SECRET,
    apiUrl: 'https://api.github.com',
    host: 'github.com',
    gitUrl: 'https://github.com',
    testBranchPrefix: 'trunk-merge/',
    reconcileMinutes: 5,
    presentationWritesPerMinute: 40,
    oauth: null,
  });
  const oneLine = privateKey.trim().split('\n').join('\\n');
  expect(settingsOf({ ...base, RAILYARD_GITHUB_PRIVATE_KEY: oneLine })?.privateKey).toBe(privateKey.trim());
  expect(
    settingsOf(
      {
        ...base,
        RAILYARD_GITHUB_PRIVATE_KEY_FILE: '/keys/app.pem',
        RAILYARD_GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
        RAILYARD_GITHUB_HOST: 'GHE.example.com',
      },
      { '/keys/app.pem': privateKey },
    ),
  ).toMatchObject({ apiUrl: 'https://ghe.example.com/api/v3', host: 'ghe.example.com' });
});

test("the app's OAuth client comes as a pair; GitHub's web pages default to the host", () => {
  const base = {
    RAILYARD_GITHUB_APP_ID: '12',
    RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
    RAILYARD_GITHUB_PRIVATE_KEY: privateKey,
  };
  const client = {
    RAILYARD_GITHUB_CLIENT_ID: 'Iv23liAbC123',
    RAILYARD_GITHUB_CLIENT_SECRET: `${SECRET}-client`,
  };
  expect(settingsOf({ ...base, ...client })?.oauth).toEqual({
    clientId: 'Iv23liAbC123',
    clientSecret: `${SECRET}-client`,
    webUrl: 'https://github.com',
  });
  expect(
    settingsOf({
      ...base,
      ...client,
      RAILYARD_GITHUB_HOST: 'ghe.example.com',
      RAILYARD_GITHUB_WEB_URL: 'https://ghe.example.com/',
    })?.oauth?.webUrl,
  ).toBe('https://ghe.example.com');
  const half = messageOf(() =>
    settingsOf({ ...base, RAILYARD_GITHUB_CLIENT_SECRET: client.RAILYARD_GITHUB_CLIENT_SECRET }),
  );
  expect(half).toBe(
    "Invalid configuration: RAILYARD_GITHUB_CLIENT_SECRET is set but RAILYARD_GITHUB_CLIENT_ID is not; set both (the GitHub App's client id and a client secret) or neither.",
  );
  expect(half).not.toContain(SECRET);
  expect(messageOf(() => settingsOf(client))).toBe(
    'Invalid configuration: RAILYARD_GITHUB_CLIENT_ID, RAILYARD_GITHUB_CLIENT_SECRET are set but RAILYARD_GITHUB_APP_ID is not; set the app id too, or unset them to leave GitHub off.',
  );
});

test('a half-configured app stops with a sentence naming the variable, never quoting a secret', () => {
  const messages = [
    messageOf(() =>
      settingsOf({ RAILYARD_GITHUB_PRIVATE_KEY: privateKey, RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET }),
    ),
    messageOf(() => settingsOf({ RAILYARD_GITHUB_APP_ID: '12', RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET })),
    messageOf(() => settingsOf({ RAILYARD_GITHUB_APP_ID: '12', RAILYARD_GITHUB_PRIVATE_KEY: privateKey })),
    messageOf(() =>
      settingsOf({
        RAILYARD_GITHUB_APP_ID: '12',
        RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
        RAILYARD_GITHUB_PRIVATE_KEY: privateKey,
        RAILYARD_GITHUB_PRIVATE_KEY_FILE: '/keys/app.pem',
      }),
    ),
    messageOf(() =>
      settingsOf({
        RAILYARD_GITHUB_APP_ID: '12',
        RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
        RAILYARD_GITHUB_PRIVATE_KEY: `${SECRET}-not-a-key`,
      }),
    ),
    messageOf(() =>
      settingsOf({
        RAILYARD_GITHUB_APP_ID: '12',
        RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
        RAILYARD_GITHUB_PRIVATE_KEY_FILE: '/keys/missing.pem',
      }),
    ),
  ];
  expect(messages).toEqual([
    'Invalid configuration: RAILYARD_GITHUB_PRIVATE_KEY, RAILYARD_GITHUB_WEBHOOK_SECRET are set but RAILYARD_GITHUB_APP_ID is not; set the app id too, or unset them to leave GitHub off.',
    "Invalid configuration: RAILYARD_GITHUB_APP_ID is set but no private key is; set RAILYARD_GITHUB_PRIVATE_KEY_FILE (or RAILYARD_GITHUB_PRIVATE_KEY) to the app's PEM key.",
    'Invalid configuration: RAILYARD_GITHUB_APP_ID is set but RAILYARD_GITHUB_WEBHOOK_SECRET is not; set it to the webhook secret of the GitHub App.',
    'Invalid configuration: both RAILYARD_GITHUB_PRIVATE_KEY and RAILYARD_GITHUB_PRIVATE_KEY_FILE are set; set only one.',
    'Invalid configuration: RAILYARD_GITHUB_PRIVATE_KEY does not hold a PEM RSA private key (download one under the GitHub App\'s "Private keys").',
    'Invalid configuration: RAILYARD_GITHUB_PRIVATE_KEY_FILE="/keys/missing.pem" cannot be read (ENOENT).',
  ]);
  for (const m of messages) {
    expect(m).not.toContain(SECRET);
    expect(m).not.toContain('PRIVATE KEY-----');
  }
});

test('a bad app id, API URL or host is named by the schema', () => {
  expect(messageOf(() => settingsOf({ RAILYARD_GITHUB_APP_ID: 'abc' }))).toMatch(
    /^Invalid configuration: RAILYARD_GITHUB_APP_ID="abc" is invalid/,
  );
  expect(messageOf(() => settingsOf({ RAILYARD_GITHUB_API_URL: 'ftp://x' }))).toMatch(
    /RAILYARD_GITHUB_API_URL="ftp:\/\/x" is invalid: must be an http\(s\) URL/,
  );
  expect(messageOf(() => settingsOf({ RAILYARD_GITHUB_HOST: 'https://github.com' }))).toMatch(
    /RAILYARD_GITHUB_HOST="https:\/\/github.com" is invalid: must be a host name/,
  );
  for (const minutes of ['0', '1441', '2.5', 'soon'])
    expect(messageOf(() => settingsOf({ RAILYARD_GITHUB_RECONCILE_MINUTES: minutes }))).toContain(
      `RAILYARD_GITHUB_RECONCILE_MINUTES="${minutes}" is invalid`,
    );
});

test('the api and the worker both read the GitHub settings (and every other known variable)', () => {
  const env = {
    DATABASE_URL: 'postgres://localhost/railyard',
    RAILYARD_GITHUB_APP_ID: '12',
    RAILYARD_GITHUB_PRIVATE_KEY: privateKey,
    RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
    RAILYARD_GITHUB_HOST: 'ghe.example.com',
    RAILYARD_GITHUB_API_URL: 'https://ghe.example.com/api/v3',
    RAILYARD_GITHUB_RECONCILE_MINUTES: '15',
  };
  expect(gitHubAppSettingsOf(loadApiConfig(env))?.host).toBe('ghe.example.com');
  expect(gitHubAppSettingsOf(loadWorkerConfig(env))).toMatchObject({
    apiUrl: 'https://ghe.example.com/api/v3',
    gitUrl: 'https://ghe.example.com',
    reconcileMinutes: 15,
  });
  expect(() => loadWorkerConfig({ ...env, RAILYARD_GITHUB_TEST_BRANCH_PREFIX: '../x' })).toThrow(
    /RAILYARD_GITHUB_TEST_BRANCH_PREFIX/,
  );
  expect(
    loadApiConfig({
      ...env,
      RAILYARD_MAX_QUEUES_PER_ORGANISATION: '5',
      RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION: '6',
      RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS: '7',
    }),
  ).toMatchObject({
    RAILYARD_MAX_QUEUES_PER_ORGANISATION: 5,
    RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION: 6,
    RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS: 7,
  });
});
