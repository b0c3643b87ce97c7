/**
 * Bad input that no endpoint in particular owns: authentication, body size at the 20 MiB limit,
 * content types, routes and methods that do not exist, broken or over-long paths, prototype pollution,
 * over-long names and control characters in them. The size rows build bodies of exactly 20 MiB and 20 MiB + 1 byte: the limit
 * itself is allowed, one byte more is not.
 */
import { QUEUE, type BadInputRow } from './rows';

const LIMIT = 20 * 1024 * 1024;

/** A getQueue body of exactly `bytes` bytes (an ignored `pad` field takes up the rest). */
export function bodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ ...QUEUE, pad: '' });
  return JSON.stringify({ ...QUEUE, pad: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
}

// prettier-ignore
export const authentication: BadInputRow[] = [
  { name: 'no x-api-token header', route: '/v1/getQueue', body: QUEUE, auth: 'none', status: 401, message: 'Missing API key: send it in the x-api-token header.' },
  { name: 'an empty x-api-token header', route: '/v1/getQueue', body: QUEUE, auth: { token: '' }, status: 401, message: 'Missing API key: send it in the x-api-token header.' },
  { name: 'a key that was never issued', route: '/v1/getQueue', body: QUEUE, auth: { token: 'ry_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, status: 401, message: 'The API key in x-api-token is not valid or has been revoked.' },
  { name: 'a 10 kB key', route: '/v1/getQueue', body: QUEUE, auth: { token: `ry_${'a'.repeat(10_000)}` }, status: 401, message: 'The API key in x-api-token is not valid or has been revoked.' },
  { name: 'bad key and bad body: the key is judged first', route: '/v1/getQueue', body: '{', auth: { token: 'nope-nope-nope' }, status: 401, message: 'The API key in x-api-token is not valid or has been revoked.' },
  // Issue 24: a 20 MiB body was parsed before the key was checked; a bad key now costs no parse.
  { name: 'a wrong key with 20 MiB that is not JSON: refused before the body is parsed', route: '/v1/getQueue', body: Buffer.alloc(LIMIT, '['), auth: { token: 'nope-nope-nope' }, status: 401, message: 'The API key in x-api-token is not valid or has been revoked.' },
];

// prettier-ignore
export const bodySize: BadInputRow[] = [
  { name: 'body of exactly 20 MiB is read', route: '/v1/getQueue', body: Buffer.from(bodyOfSize(LIMIT)), status: 200, message: null },
  { name: 'body of 20 MiB + 1 byte', route: '/v1/getQueue', body: Buffer.from(bodyOfSize(LIMIT + 1)), status: 413, message: 'The request body is larger than the 20 MiB limit.' },
];

// prettier-ignore
export const http: BadInputRow[] = [
  { name: 'XML content type', route: '/v1/getQueue', body: '<queue/>', headers: { 'content-type': 'application/xml' }, status: 415, message: "Content type 'application/xml' is not supported; send application/json." },
  { name: 'unknown route', route: '/v1/noSuchThing', body: QUEUE, status: 404, message: 'There is no route POST /v1/noSuchThing; see /v1/openapi.json.' },
  { name: 'GET on a POST route', method: 'GET', route: '/v1/getQueue', status: 404, message: 'There is no route GET /v1/getQueue; see /v1/openapi.json.' },
  { name: '__proto__ in the body', route: '/v1/getQueue', body: `{"__proto__":{"admin":true},${JSON.stringify(QUEUE).slice(1)}`, status: 400, message: 'The request body is not valid JSON.' },
  { name: 'constructor.prototype in the body', route: '/v1/getQueue', body: `{"constructor":{"prototype":{"admin":true}},${JSON.stringify(QUEUE).slice(1)}`, status: 400, message: 'The request body is not valid JSON.' },
  { name: 'branch of 256 characters', route: '/v1/getQueue', body: { ...QUEUE, targetBranch: 'b'.repeat(256) }, status: 400, message: "Field 'targetBranch' must be at most 255 characters long." },
  { name: 'repo name with a NUL byte', route: '/v1/getQueue', body: { ...QUEUE, repo: { ...QUEUE.repo, name: 'app\u0000' } }, status: 400, message: "Field 'repo.name' must not contain control characters." },
  { name: 'path with broken percent-encoding', method: 'GET', route: '/v1/webhooks/subscriptions/%zz', status: 400, message: 'The request path is not a valid URL.' },
  { name: 'path parameter of 101 characters', method: 'GET', route: `/v1/webhooks/subscriptions/${'0'.repeat(101)}`, status: 414, message: 'A path parameter is longer than the 100 characters allowed.' },
  { name: 'JSON nested 10,000 levels deep', route: '/v1/getQueue', body: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, status: 400, message: 'The request body must be a JSON object.' },
];

export const PLATFORM_SECTIONS: [string, BadInputRow[]][] = [
  ['authentication', authentication],
  ['bodies of 20 MiB and 20 MiB + 1', bodySize],
  ['content types, routes, prototype pollution, names', http],
];
