/**
 * Bad input to the merge-queue endpoints, grouped as issue 7 lists them. Unknown fields are the one
 * case that is not refused: Trunk's real clients send fields railyard does not know (Terraform's
 * live-only settings, newer client versions), so they are accepted and ignored, and the rows check that
 * the answer is the same as without them.
 */
import { QUEUE, withQueue, withRepo, type BadInputRow } from './rows';

const PR = (number: unknown) => withQueue({ pr: { number } });
const MISSING_QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'nope' }, targetBranch: 'main' };
const NO_QUEUE_MESSAGE = 'No merge queue exists for branch "main" of github.com/acme/nope.';
const PRIORITY_MESSAGE =
  "Field 'priority' must be an integer from 0 to 255 or one of: urgent, high, medium, low.";

// prettier-ignore
export const malformedJson: BadInputRow[] = [
  { name: 'truncated JSON', route: '/v1/getQueue', body: '{"repo": ', status: 400, message: 'The request body is not valid JSON.' },
  { name: 'trailing comma', route: '/v1/getQueue', body: '{"targetBranch": "main",}', status: 400, message: 'The request body is not valid JSON.' },
  { name: 'not JSON at all', route: '/v1/submitPullRequest', body: 'repo=acme/app', status: 400, message: 'The request body is not valid JSON.' },
  { name: 'empty body', route: '/v1/getQueue', body: '', status: 400, message: 'The request body is empty; send a JSON object.' },
  { name: 'JSON array instead of an object', route: '/v1/getQueue', body: [], status: 400, message: 'The request body must be a JSON object.' },
  { name: 'JSON null', route: '/v1/createQueue', body: 'null', status: 400, message: 'The request body must be a JSON object.' },
];

// prettier-ignore
export const wrongTypes: BadInputRow[] = [
  { name: 'targetBranch is a number', route: '/v1/getQueue', body: withQueue({ targetBranch: 5 }), status: 400, message: "Field 'targetBranch' must be a string." },
  { name: 'repo is a string', route: '/v1/getQueue', body: withQueue({ repo: 'acme/app' }), status: 400, message: "Field 'repo' must be an object." },
  { name: 'pr.number is a boolean', route: '/v1/submitPullRequest', body: PR(true), status: 400, message: "Field 'pr.number' must be a number or a numeric string." },
  { name: 'noBatch is a string', route: '/v1/submitPullRequest', body: withQueue({ pr: { number: 1 }, noBatch: 'yes' }), status: 400, message: "Field 'noBatch' must be a boolean." },
  { name: 'concurrency is a string', route: '/v1/updateQueue', body: withQueue({ concurrency: '3' }), status: 400, message: "Field 'concurrency' must be a number." },
  { name: 'mode is not a known mode', route: '/v1/updateQueue', body: withQueue({ mode: 'serial' }), status: 400, message: "Field 'mode' must be one of: single, parallel." },
  { name: 'testNetwork is a string', route: '/v1/updateQueue', body: withQueue({ testNetwork: 'off' }), status: 400, message: "Field 'testNetwork' must be a boolean." },
  { name: 'testNetwork at creation is a number', route: '/v1/createQueue', body: withQueue({ testNetwork: 0 }), status: 400, message: "Field 'testNetwork' must be a boolean." },
  { name: 'impactedTargets is an object', route: '/v1/setImpactedTargets', body: withQueue({ pr: { number: 1, sha: 'abc' }, impactedTargets: { a: 1 } }), status: 400, message: 'Field \'impactedTargets\' must be a list of target names or "ALL".' },
  { name: 'state of a commit status is unknown', route: '/v1/reportTestStatus', body: withQueue({ sha: 'abc', context: 'ci', state: 'green' }), status: 400, message: "Field 'state' must be one of: pending, success, failure, error." },
];

// prettier-ignore
export const missingFields: BadInputRow[] = [
  { name: 'no repo', route: '/v1/getQueue', body: { targetBranch: 'main' }, status: 400, message: "Field 'repo' is required." },
  { name: 'no repo.owner', route: '/v1/getQueue', body: { repo: { host: 'github.com', name: 'app' }, targetBranch: 'main' }, status: 400, message: "Field 'repo.owner' is required." },
  { name: 'no targetBranch', route: '/v1/createQueue', body: { repo: QUEUE.repo }, status: 400, message: "Field 'targetBranch' is required." },
  { name: 'no pr', route: '/v1/submitPullRequest', body: QUEUE, status: 400, message: "Field 'pr' is required." },
  { name: 'no pr.number', route: '/v1/cancelPullRequest', body: withQueue({ pr: {} }), status: 400, message: "Field 'pr.number' must be a number or a numeric string." },
  { name: 'no impactedTargets', route: '/v1/setImpactedTargets', body: withQueue({ pr: { number: 1, sha: 'abc' } }), status: 400, message: "Field 'impactedTargets' is required." },
  // Without testRunId the read lists every run in progress (trunk-read-shapes.test.ts); an empty one is refused.
  { name: 'empty testRunId', route: '/v1/getMergeQueueTestingDetails', body: withQueue({ testRunId: ' ' }), status: 400, message: "Field 'testRunId' must be at least 1 characters long." },
];

// prettier-ignore
export const unknownFields: BadInputRow[] = [
  { name: 'an unknown top-level field is ignored', route: '/v1/deleteQueue', body: { ...MISSING_QUEUE, force: true }, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'an unknown field inside repo is ignored', route: '/v1/deleteQueue', body: { ...MISSING_QUEUE, repo: { ...MISSING_QUEUE.repo, id: 7 } }, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'an unknown field inside pr is ignored', route: '/v1/cancelPullRequest', body: { ...MISSING_QUEUE, pr: { number: 1, url: 'x' } }, status: 404, message: NO_QUEUE_MESSAGE },
];

// prettier-ignore
export const numbers: BadInputRow[] = [
  { name: 'pr.number negative', route: '/v1/submitPullRequest', body: PR(-1), status: 400, message: "Field 'pr.number' must be at least 1." },
  { name: 'pr.number zero', route: '/v1/submitPullRequest', body: PR(0), status: 400, message: "Field 'pr.number' must be at least 1." },
  { name: 'pr.number above 2^32 - 1', route: '/v1/submitPullRequest', body: PR(4_294_967_296), status: 400, message: "Field 'pr.number' must be at most 4294967295." },
  { name: 'pr.number 1e300', route: '/v1/getSubmittedPullRequest', body: PR(1e300), status: 400, message: "Field 'pr.number' must be at most 4294967295." },
  { name: 'pr.number beyond double range (1e400)', route: '/v1/getSubmittedPullRequest', body: '{"repo":{"host":"github.com","owner":"acme","name":"app"},"targetBranch":"main","pr":{"number":1e400}}', status: 400, message: "Field 'pr.number' must be a number or a numeric string." },
  { name: 'pr.number a fraction', route: '/v1/submitPullRequest', body: PR(1.5), status: 400, message: "Field 'pr.number' must be an integer." },
  { name: 'priority negative', route: '/v1/submitPullRequest', body: withQueue({ pr: { number: 1 }, priority: -1 }), status: 400, message: PRIORITY_MESSAGE },
  { name: 'priority 256', route: '/v1/submitPullRequest', body: withQueue({ pr: { number: 1 }, priority: 256 }), status: 400, message: PRIORITY_MESSAGE },
  { name: 'concurrency zero', route: '/v1/updateQueue', body: withQueue({ concurrency: 0 }), status: 400, message: "Field 'concurrency' must be at least 1." },
  { name: 'concurrency negative', route: '/v1/createQueue', body: withQueue({ concurrency: -3 }), status: 400, message: "Field 'concurrency' must be at least 1." },
  { name: 'pendingFailureDepth negative', route: '/v1/updateQueue', body: withQueue({ pendingFailureDepth: -1 }), status: 400, message: "Field 'pendingFailureDepth' must be at least 0." },
  { name: 'testingTimeoutMinutes a fraction', route: '/v1/updateQueue', body: withQueue({ testingTimeoutMinutes: 0.5 }), status: 400, message: "Field 'testingTimeoutMinutes' must be an integer." },
  { name: 'stalledCheckGraceMinutes past a day', route: '/v1/updateQueue', body: withQueue({ stalledCheckGraceMinutes: 1441 }), status: 400, message: "Field 'stalledCheckGraceMinutes' must be at most 1440." },
  { name: 'flakyRetries past the cap', route: '/v1/updateQueue', body: withQueue({ flakyRetries: 4 }), status: 400, message: "Field 'flakyRetries' must be at most 3." },
  { name: 'stalledCheckGraceMinutes negative', route: '/v1/updateQueue', body: withQueue({ stalledCheckGraceMinutes: -1 }), status: 400, message: "Field 'stalledCheckGraceMinutes' must be at least 0." },
  { name: 'listPullRequests take 0', route: '/v1/listPullRequests', body: withQueue({ take: 0 }), status: 400, message: "Field 'take' must be at least 1." },
  { name: 'listPullRequests take 101', route: '/v1/listPullRequests', body: withQueue({ take: 101 }), status: 400, message: "Field 'take' must be at most 100." },
];

const NUMERIC_STRING = "Field 'pr.number' must be a number or a numeric string.";
// prettier-ignore
export const prNumberStrings: BadInputRow[] = [
  { name: 'pr.number "abc"', route: '/v1/submitPullRequest', body: PR('abc'), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number "12abc"', route: '/v1/submitPullRequest', body: PR('12abc'), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number ""', route: '/v1/cancelPullRequest', body: PR(''), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number "-5"', route: '/v1/cancelPullRequest', body: PR('-5'), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number "1e3"', route: '/v1/restartTestsOnPullRequest', body: PR('1e3'), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number "0x10"', route: '/v1/getSubmittedPullRequest', body: PR('0x10'), status: 400, message: NUMERIC_STRING },
  { name: 'pr.number "99999999999"', route: '/v1/getSubmittedPullRequest', body: PR('99999999999'), status: 400, message: "Field 'pr.number' must be at most 4294967295." },
];

// prettier-ignore
export const unknownResources: BadInputRow[] = [
  { name: 'getQueue of an unknown queue', route: '/v1/getQueue', body: MISSING_QUEUE, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'submit to an unknown queue', route: '/v1/submitPullRequest', body: { ...MISSING_QUEUE, pr: { number: 1 } }, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'updateQueue of an unknown queue', route: '/v1/updateQueue', body: { ...MISSING_QUEUE, concurrency: 2 }, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'listPullRequests of an unknown queue', route: '/v1/listPullRequests', body: MISSING_QUEUE, status: 404, message: NO_QUEUE_MESSAGE },
  { name: 'getSubmittedPullRequest of a PR never submitted', route: '/v1/getSubmittedPullRequest', body: PR(999), status: 404, message: 'Pull request #999 was never submitted to the merge queue for branch "main" of github.com/acme/app.' },
  { name: 'cancel a PR not in the queue', route: '/v1/cancelPullRequest', body: PR(999), status: 404, message: 'Pull request #999 is not in the merge queue for github.com/acme/app branch "main".' },
  { name: 'restart a PR not in the queue', route: '/v1/restartTestsOnPullRequest', body: PR(999), status: 404, message: 'Pull request #999 is not in the merge queue for github.com/acme/app branch "main".' },
  { name: 'submit a PR the repository does not have', route: '/v1/submitPullRequest', body: PR(999), status: 404, message: 'Pull request #999 was not found in github.com/acme/app.' },
  { name: 'testing details of an unknown run', route: '/v1/getMergeQueueTestingDetails', body: withQueue({ testRunId: 'no-such-run' }), status: 404, message: 'No test run "no-such-run" exists in the merge queue for branch "main" of github.com/acme/app.' },
];

// prettier-ignore
export const queueLifecycle: BadInputRow[] = [
  { name: 'duplicate createQueue', route: '/v1/createQueue', body: QUEUE, status: 409, message: 'A merge queue already exists for branch "main" in this repository.' },
  { name: 'deleteQueue of a queue that holds a PR', route: '/v1/deleteQueue', body: QUEUE, status: 400, message: 'The merge queue for github.com/acme/app branch "main" still holds 2 pull requests; cancel them before deleting it.' },
];

// prettier-ignore
export const pageTokens: BadInputRow[] = [
  { name: 'forged listPullRequests cursor', route: '/v1/listPullRequests', body: withQueue({ cursor: 'bm90LWEtdG9rZW4.AAAAAAAAAAAAAAAA' }), status: 400, message: "Field 'cursor' is not a cursor this server issued for this listing." },
  { name: 'cursor without a check', route: '/v1/listPullRequests', body: withQueue({ cursor: 'bm90LWEtdG9rZW4' }), status: 400, message: "Field 'cursor' is not a cursor this server issued for this listing." },
  { name: 'cursor of another listing (other state filter)', route: '/v1/listPullRequests', bodyOf: (ctx) => withQueue({ cursor: ctx.cursor, state: 'merged' }), status: 400, message: "Field 'cursor' is not a cursor this server issued for this listing." },
  { name: 'cursor longer than 4096 characters', route: '/v1/listPullRequests', body: withQueue({ cursor: 'a'.repeat(4097) }), status: 400, message: "Field 'cursor' must be at most 4096 characters long." },
];

// prettier-ignore
export const gitNames: BadInputRow[] = [
  { name: 'owner "--upload-pack=x"', route: '/v1/createQueue', body: withRepo({ owner: '--upload-pack=x' }), status: 400, message: "Field 'repo.owner' has a segment starting with \"-\"." },
  { name: 'owner "../x"', route: '/v1/getQueue', body: withRepo({ owner: '../x' }), status: 400, message: "Field 'repo.owner' has a \".\" or \"..\" segment." },
  { name: 'owner through another repository ("acme/app.git/refs/heads")', route: '/v1/createQueue', body: withRepo({ owner: 'acme/app.git/refs/heads', name: 'x' }), status: 400, message: "Field 'repo.owner' has a segment ending in \".git\", which names a repository's folder." },
  { name: 'claim of an owner through another repository', route: '/v1/repositories/claim', body: { repo: { ...QUEUE.repo, owner: 'acme/APP.GIT', name: 'objects' } }, status: 400, message: "Field 'repo.owner' has a segment ending in \".git\", which names a repository's folder." },
  { name: 'name "../../etc"', route: '/v1/submitPullRequest', body: { ...withRepo({ name: '../../etc' }), pr: { number: 1 } }, status: 400, message: "Field 'repo.name' must not contain \"/\"." },
  { name: 'name with a space', route: '/v1/createQueue', body: withRepo({ name: 'my app' }), status: 400, message: "Field 'repo.name' may only contain letters, digits, \".\", \"_\" and \"-\"." },
  { name: 'claim of owner "--upload-pack=x"', route: '/v1/repositories/claim', body: { repo: { ...QUEUE.repo, owner: '--upload-pack=x' } }, status: 400, message: "Field 'repo.owner' has a segment starting with \"-\"." },
  { name: 'claim of name "../../etc"', route: '/v1/repositories/claim', body: { repo: { ...QUEUE.repo, name: '../../etc' } }, status: 400, message: "Field 'repo.name' must not contain \"/\"." },
  { name: 'claim with no repo', route: '/v1/repositories/claim', body: {}, status: 400, message: "Field 'repo' is required." },
  { name: 'host "-oProxyCommand=x"', route: '/v1/createQueue', body: withRepo({ host: '-oProxyCommand=x' }), status: 400, message: "Field 'repo.host' must be a host name such as github.com." },
  { name: 'branch "--upload-pack=x"', route: '/v1/createQueue', body: withQueue({ targetBranch: '--upload-pack=x' }), status: 400, message: "Field 'targetBranch' must not start with \"-\"." },
  { name: 'branch "../x"', route: '/v1/getQueue', body: withQueue({ targetBranch: '../x' }), status: 400, message: "Field 'targetBranch' must not contain \"..\"." },
  { name: 'branch with a space', route: '/v1/createQueue', body: withQueue({ targetBranch: 'my branch' }), status: 400, message: "Field 'targetBranch' must not contain spaces or control characters." },
  { name: 'branch "refs/heads/main"', route: '/v1/createQueue', body: withQueue({ targetBranch: 'refs/heads/main' }), status: 400, message: "Field 'targetBranch' must not be HEAD or start with refs/." },
  { name: 'branch with a newline', route: '/v1/getQueue', body: withQueue({ targetBranch: 'main\nX-Injected: 1' }), status: 400, message: "Field 'targetBranch' must not contain control characters." },
];

const KEY_MESSAGE = "Header 'idempotency-key' must be 1 to 255 printable ASCII characters.";

// prettier-ignore
export const idempotencyKeys: BadInputRow[] = [
  { name: 'empty Idempotency-Key', route: '/v1/submitPullRequest', body: PR(1), headers: { 'Idempotency-Key': '' }, status: 400, message: KEY_MESSAGE },
  { name: 'Idempotency-Key of 256 characters', route: '/v1/cancelPullRequest', body: PR(1), headers: { 'Idempotency-Key': 'k'.repeat(256) }, status: 400, message: KEY_MESSAGE },
  { name: 'Idempotency-Key with a non-ASCII character', route: '/v1/updateQueue', body: QUEUE, headers: { 'Idempotency-Key': 'cl\u00e9' }, status: 400, message: KEY_MESSAGE },
];

export const MERGE_QUEUE_SECTIONS: [string, BadInputRow[]][] = [
  ['malformed JSON', malformedJson],
  ['wrong types', wrongTypes],
  ['missing fields', missingFields],
  ['extra unknown fields', unknownFields],
  ['negative and huge numbers', numbers],
  ['non-numeric pr.number strings', prNumberStrings],
  ['unknown queue and PR', unknownResources],
  ['duplicate create, delete of a non-empty queue', queueLifecycle],
  ['forged page tokens', pageTokens],
  ['git names that could escape the root or become options', gitNames],
  ['idempotency keys', idempotencyKeys],
];
