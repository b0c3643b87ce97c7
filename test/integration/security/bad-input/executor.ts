/**
 * Bad input to the HTTPS executor protocol (/v1/executor/*, issue 24, ADR 0014): what an executor — or
 * anyone who reaches the API with a stolen, guessed or wrong credential — may send. Every body is
 * bounded and checked before it reaches Temporal; a job the caller does not hold is one sentence,
 * whoever holds it. The context's executor holds no job, so each job id here is one it does not hold.
 */
import { FAILURE_KINDS } from '../../../../executor/protocol';
import { MAX_PACKED_BYTES } from '../../../../executor/run-report';
import type { BadInputRow } from './rows';

const CLAIM = '/v1/executor/jobs/claim';
const JOB = '00000000-0000-4000-8000-000000000000';
const job = (what: string) => `/v1/executor/jobs/${JOB}/${what}`;
const NO_CREDENTIAL = 'The Authorization header must carry an executor credential as "Bearer <credential>".';
const WRONG_CREDENTIAL = 'The executor credential is not valid or has been revoked.';
const NOT_HELD = `Job ${JOB} is not held by this executor: it was reported, retried elsewhere or never yours.`;
const ANNOUNCE = { host: 'runner-1', slots: 2, sandbox: 'bubblewrap 0.8.0', network: 'isolated' };
const OCTETS = { 'content-type': 'application/octet-stream' };

// prettier-ignore
export const credentials: BadInputRow[] = [
  { on: 'executor', name: 'no Authorization header', route: CLAIM, auth: 'none', status: 401, message: NO_CREDENTIAL },
  { on: 'executor', name: 'a credential that was never issued', route: CLAIM, auth: { token: `rye_${'A'.repeat(43)}` }, status: 401, message: WRONG_CREDENTIAL },
  { on: 'executor', name: "an organisation's API key as the credential", route: CLAIM, auth: { token: `ry_${'A'.repeat(43)}` }, status: 401, message: WRONG_CREDENTIAL },
  { on: 'executor', name: 'a 10 kB credential', route: CLAIM, auth: { token: `rye_${'a'.repeat(10_000)}` }, status: 401, message: WRONG_CREDENTIAL },
];

// prettier-ignore
export const announcements: BadInputRow[] = [
  { on: 'executor', name: 'announce with 0 slots', route: '/v1/executor/announce', body: { ...ANNOUNCE, slots: 0 }, status: 400, message: "Field 'slots' must be at least 1." },
  { on: 'executor', name: 'announce without a host', route: '/v1/executor/announce', body: { ...ANNOUNCE, host: undefined }, status: 400, message: "Field 'host' is required." },
  { on: 'executor', name: 'announce a network of 101 characters', route: '/v1/executor/announce', body: { ...ANNOUNCE, network: 'n'.repeat(101) }, status: 400, message: "Field 'network' must be at most 100 characters long." },
];

// prettier-ignore
export const jobs: BadInputRow[] = [
  { on: 'executor', name: 'a job id that is not a UUID', route: '/v1/executor/jobs/..%2F..%2Fetc/heartbeat', status: 400, message: "Field 'id' must be a job id (a UUID)." },
  { on: 'executor', name: 'the content of a job it does not hold', method: 'GET', route: job('content'), status: 404, message: NOT_HELD },
  { on: 'executor', name: 'a heartbeat for a job it does not hold', route: job('heartbeat'), status: 404, message: NOT_HELD },
  { on: 'executor', name: 'a report for a job it does not hold', method: 'PUT', route: job('report'), headers: OCTETS, body: Buffer.from('packed'), status: 404, message: NOT_HELD },
  { on: 'executor', name: `a report of ${MAX_PACKED_BYTES + 1025} bytes`, method: 'PUT', route: job('report'), headers: OCTETS, body: Buffer.alloc(MAX_PACKED_BYTES + 1025), status: 413, message: `The request body is larger than the ${MAX_PACKED_BYTES + 1024}-byte limit.` },
  { on: 'executor', name: 'a report sent as JSON', method: 'PUT', route: job('report'), body: { outcome: 'passed' }, status: 400, message: "The body must be the packed run report, as application/octet-stream." },
  { on: 'executor', name: 'a failure of a kind the protocol does not know', route: job('failure'), body: { kind: 'passed', message: 'x' }, status: 400, message: `Field 'kind' must be one of: ${Object.keys(FAILURE_KINDS).join(', ')}.` },
  { on: 'executor', name: 'a failure message of 2001 characters', route: job('failure'), body: { kind: 'executor_error', message: 'm'.repeat(2001) }, status: 400, message: "Field 'message' must be at most 2000 characters long." },
  { on: 'executor', name: 'a failure for a job it does not hold', route: job('failure'), body: { kind: 'executor_error', message: 'x' }, status: 404, message: NOT_HELD },
];

export const EXECUTOR_SECTIONS: [string, BadInputRow[]][] = [
  ['executor protocol: credentials', credentials],
  ['executor protocol: announcements', announcements],
  ['executor protocol: jobs', jobs],
];
