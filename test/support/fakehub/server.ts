/**
 * fakehub: a stateful, contract-checked stand-in for GitHub, one per test file, in-process on
 * 127.0.0.1:<random port>. It serves the REST subset railyard uses (rest.ts), git smart HTTP over real
 * bare repositories (git-http.ts), and a state API tests call directly (create installations and
 * repositories, open/close/push PRs, set check runs, statuses and protection, fault knobs), and
 * announces every change with a signed, contract-checked webhook delivery (webhooks.ts).
 *
 * Invariants:
 * - Every REST request is matched to its operation in GitHub's OpenAPI description and validated
 *   (path, query, body, credential kind) before it is handled; every REST response is validated before
 *   it is sent. Each mismatch is recorded as a violation; `assertNoViolations()` (run after each test by
 *   `useFakeHub`) fails the test that caused it. An invalid request is also answered 422 like GitHub.
 * - Tokens and keys never appear in a violation, a request record or a response other than the
 *   access-token response itself.
 * - Conditional GETs: every 200 carries an `ETag`; a matching `If-None-Match` gets 304 with no body
 *   and does not spend rate limit. Every REST answer carries `x-ratelimit-*`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createFakeApp, createTokenStore, credentialOf, verifyAppJwt, type FakeApp } from './app-auth';
import { SERVED_OPERATIONS } from './contract/operations';
import { createContractValidator, type MatchedOperation } from './contract/validator';
import type { Actor } from './events';
import { createWriteRateLimiter, type WriteRateLimit } from './secondary-limits';
import { createBinaryBroker } from '../binary-broker';
import { findHttpBackend, installHooks, runHttpBackend } from './git-http';
import { botLogin, handleRest, type RestContext } from './rest';
import {
  FakeHubState,
  GITHUB_HOST,
  type CheckRun,
  type CommitStatus,
  type Installation,
  type IssueComment,
  type Protection,
  type PullRequest,
  type Pusher,
  type RefUpdate,
  type Repository,
  type RepositoryRole,
  type Review,
} from './state';
import { createUsers, type FakeHubUsers } from './users';
import { createWebhookDispatcher, type FakeHubWebhooks } from './webhooks';
import { createProcessBroker } from '../../../platform/process-runner';
import { slowStepReporter } from '../slow-steps';

export interface FakeHubOptions {
  /** Lifetime of installation tokens; GitHub's is one hour. */
  tokenLifetimeSeconds?: number;
  /** Primary rate limit per installation per hour; GitHub's is 5,000. */
  rateLimit?: number;
}

export interface RequestRecord {
  kind: 'rest' | 'git';
  method: string;
  path: string;
  operationId: string | null;
  status: number;
}

export interface FakeHub {
  /** REST base URL (Octokit `baseUrl`) and git host: `<url>/<owner>/<name>.git`. */
  readonly url: string;
  readonly app: FakeApp;
  readonly state: FakeHubState;
  /** Every request answered, in order (no credentials in it). */
  readonly requests: readonly RequestRecord[];
  gitUrl(owner: string, name: string): string;
  createInstallation(input: { account: string; accountType?: Installation['accountType'] }): Installation;
  createRepository(input: {
    installationId: number;
    owner: string;
    name: string;
    defaultBranch?: string;
  }): Promise<Repository>;
  /** Mints an installation token without a JWT (for tests of git and REST that are not about auth). */
  installationToken(installationId: number): string;
  openPullRequest(input: {
    owner: string;
    repo: string;
    head: string;
    base?: string;
    title?: string;
    author?: string;
    draft?: boolean;
    /** The PR's description (null when absent, as GitHub's). */
    body?: string;
  }): Promise<PullRequest>;
  closePullRequest(owner: string, repo: string, number: number): void;
  /** Reopens a closed, unmerged PR whose head branch exists (`pull_request.reopened`). */
  reopenPullRequest(owner: string, repo: string, number: number): Promise<void>;
  /** Changes the PR's base branch (`pull_request.edited` with `changes.base`). */
  retargetPullRequest(owner: string, repo: string, number: number, base: string): Promise<void>;
  /** A developer pushes `sha` to the PR's head branch. */
  pushPullRequest(owner: string, repo: string, number: number, sha: string): Promise<void>;
  pullRequest(owner: string, repo: string, number: number): PullRequest;
  setCheckRun(
    owner: string,
    repo: string,
    sha: string,
    run: { name: string; status?: CheckRun['status']; conclusion?: CheckRun['conclusion'] },
  ): CheckRun;
  setStatus(
    owner: string,
    repo: string,
    sha: string,
    status: { context: string; state: CommitStatus['state']; description?: string; targetUrl?: string },
  ): CommitStatus;
  setProtection(owner: string, repo: string, branch: string, protection: Protection | null): void;
  /**
   * Creates a repository in an installation that already exists and announces it
   * (`installation_repositories.added`); createRepository announces nothing (the repository is taken
   * as part of the installation from the start).
   */
  addRepositoryToInstallation(input: {
    installationId: number;
    owner: string;
    name: string;
    defaultBranch?: string;
  }): Promise<Repository>;
  /** Comments on issue or PR `number` (`POST /issues/{n}/comments`), oldest first. */
  comments(owner: string, repo: string, number: number): IssueComment[];
  /**
   * A person comments on PR `number` (`issue_comment.created`, sent by them); a login ending in
   * `[bot]` comments as a bot. Returns the comment (its `reactions` fill as railyard reacts).
   */
  comment(owner: string, repo: string, number: number, input: { author: string; body: string }): IssueComment;
  /** The comment's author edits it (`issue_comment.edited`, the old body in `changes`). */
  editComment(owner: string, repo: string, commentId: number, body: string): void;
  /** The comment's author deletes it (`issue_comment.deleted`). */
  deleteComment(owner: string, repo: string, commentId: number): void;
  /**
   * `login`'s role on the repository, as `GET /collaborators/{login}/permission` reports it (maintain
   * as write, triage as read); null forgets it (the endpoint answers 404 then).
   */
  setPermission(owner: string, repo: string, login: string, role: RepositoryRole | null): void;
  /** `login` reviews the PR at its head (`pull_request_review.submitted`). */
  review(owner: string, repo: string, number: number, login: string, state: Review['state']): Review;
  /** The author marks a draft ready for review (`ready_for_review`) or converts it back (`converted_to_draft`). */
  setDraft(owner: string, repo: string, number: number, draft: boolean): void;
  /** People: organisation roles, the App's OAuth flow and user tokens (users.ts). */
  readonly users: FakeHubUsers;
  /** Webhook deliveries: target, record, idle() and the delivery fault knobs. */
  readonly webhooks: FakeHubWebhooks;
  readonly knobs: FakeHubKnobs;
  readonly violations: readonly string[];
  /** Returns and forgets the violations recorded so far. */
  takeViolations(): string[];
  /** Throws (and forgets them) when any violation was recorded. */
  assertNoViolations(): void;
  close(): Promise<void>;
}

export interface FakeHubKnobs {
  /** The next `requests` REST requests get GitHub's secondary rate limit answer with `retry-after`. */
  secondaryRateLimit(requests: number, options?: { status?: 403 | 429; retryAfterSeconds?: number }): void;
  /**
   * GitHub's limit on content-creating requests: at most `writes` per installation in any `windowMs`
   * (null: off). `secondaryLimitStats` says how many were refused and the most accepted in a window.
   */
  secondaryLimitRate(limit: WriteRateLimit | null): void;
  secondaryLimitStats(): { refused: number; peak: number; accepted: number };
  /** The next `reads` of `GET /pulls/{n}` answer `mergeable: null` ("unknown"), as GitHub computes it. */
  mergeableUnknown(owner: string, repo: string, number: number, reads: number): void;
  /**
   * The next merge request of PR `number` arrives twice, as when a worker died after sending it and
   * another attempt sends it again: the first is acted on, the second answered (405, no longer open).
   */
  mergeRequestedTwice(owner: string, repo: string, number: number): void;
  /** Every installation token issued so far expires now. */
  expireTokens(): void;
  /** The next JSON response body is passed to `mutate` before it is validated and sent. */
  corruptNextResponse(mutate: (body: unknown) => unknown): void;
  /**
   * The next `times` requests of `operationId` (e.g. `pulls/create`; Infinity: every one, 0: none) fail
   * before they are acted on: GitHub's answer `status` (default 503, a body GitHub sends with it), or
   * `network`, the connection closed without an answer. The other operations are served as ever.
   */
  failOperation(operationId: string, times: number, failure?: { status: 500 | 503 } | 'network'): void;
}

const DOCS = 'https://docs.github.com/rest';
const SECONDARY_DOCS =
  'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits';
const INVALID_JSON = Symbol('invalid JSON');
const CREDENTIAL_BY_OPERATION = new Map(
  SERVED_OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op.credential]),
);

interface RestInfo {
  op: MatchedOperation;
  record: RequestRecord;
  bucket: string;
}

interface RateBucket {
  limit: number;
  used: number;
  reset: number;
}

/** The CI that reports check runs and statuses set through the state API. */
const CI_APP: Actor = { login: 'ci[bot]', type: 'Bot' };
const CI_USER = 'ci-bot';

export async function startFakeHub(options: FakeHubOptions = {}): Promise<FakeHub> {
  const dir = await mkdtemp(join(tmpdir(), 'fakehub-'));
  const app = createFakeApp();
  const violations: string[] = [];
  let baseUrl = '';
  // The state reports changes; the dispatcher reads the state back to build each delivery.
  const dispatcher = createWebhookDispatcher({
    context: () => ({ base: baseUrl, app, state }),
    app,
    onViolation: (text) => violations.push(text),
  });
  // The fake's own git calls run from a small broker process, not from the large jest worker.
  const broker = createProcessBroker();
  // git http-backend (bytes in and out) from a small helper too: one per git request of every story.
  const backends = createBinaryBroker();
  const state = new FakeHubState(dir, (event) => dispatcher.enqueue(event), broker);
  const tokens = createTokenStore();
  const users = createUsers(app);
  const contract = createContractValidator();
  const backend = await findHttpBackend();
  const hookSecret = randomBytes(24).toString('hex');
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  const requests: RequestRecord[] = [];
  const restInfo = new WeakMap<FastifyRequest, RestInfo>();
  const buckets = new Map<string, RateBucket>();
  const mergeableUnknown = new Map<string, number>();
  const mergeRequestedTwice = new Set<string>();
  let secondary = { remaining: 0, status: 403 as 403 | 429, retryAfter: 60 };
  const writeRate = createWriteRateLimiter();
  let corrupt: ((body: unknown) => unknown) | null = null;
  /** Operations made to fail (knobs.failOperation): how many more times, and how. */
  const faults = new Map<string, { remaining: number; failure: { status: 500 | 503 } | 'network' }>();

  // Closing at the end of a file does not wait for requests still in flight (a worker's retry).
  const fastify = Fastify({ logger: false, forceCloseConnections: true });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body: string, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch {
      done(null, INVALID_JSON);
    }
  });
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 * 1024 }, (_req, body, done) =>
    done(null, body),
  );

  const bucketOf = (key: string): RateBucket => {
    let bucket = buckets.get(key);
    const now = Math.floor(Date.now() / 1000);
    if (!bucket || bucket.reset <= now) {
      bucket = { limit: key === 'anonymous' ? 60 : (options.rateLimit ?? 5000), used: 0, reset: now + 3600 };
      buckets.set(key, bucket);
    }
    return bucket;
  };

  // ---- git smart HTTP -------------------------------------------------------------------------
  const git = async (request: FastifyRequest, reply: FastifyReply, service: string) => {
    const params = request.params as { owner: string; repo: string };
    const record: RequestRecord = {
      kind: 'git',
      method: request.method,
      path: request.url,
      operationId: null,
      status: 0,
    };
    requests.push(record);
    const name = params.repo.replace(/\.git$/, '');
    const credential = credentialOf(request.headers.authorization);
    const token =
      credential?.scheme === 'basic' && credential.user === 'x-access-token'
        ? tokens.check(credential.secret)
        : null;
    if (!token) {
      record.status = 401;
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="GitHub"')
        .type('text/plain')
        .send('Invalid username or token. Password authentication is not supported for Git operations.\n');
    }
    const repo = state.repository(params.owner, name);
    if (!repo || repo.installationId !== token.installationId) {
      record.status = 404;
      return reply.code(404).type('text/plain').send('Repository not found.\n');
    }
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const answer = await runHttpBackend(backends, backend, join(dir, GITHUB_HOST), {
      method: request.method,
      pathInfo: `/${repo.owner}/${repo.name}.git/${service}`,
      query,
      contentType: request.headers['content-type'],
      contentEncoding: request.headers['content-encoding'],
      gitProtocol: request.headers['git-protocol'] as string | undefined,
      body: Buffer.isBuffer(request.body) ? request.body : undefined,
      env: { FAKEHUB_ACTOR: `app:${token.appId}` },
    });
    record.status = answer.status;
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };
  fastify.get('/:owner/:repo/info/refs', (req, reply) => git(req, reply, 'info/refs'));
  fastify.post('/:owner/:repo/git-upload-pack', (req, reply) => git(req, reply, 'git-upload-pack'));
  fastify.post('/:owner/:repo/git-receive-pack', (req, reply) => git(req, reply, 'git-receive-pack'));

  // ---- hooks called by the bare repositories --------------------------------------------------
  fastify.post('/_fakehub/hooks', async (request, reply) => {
    if (request.headers['x-fakehub-hook'] !== hookSecret)
      return reply.code(403).send({ ok: false, lines: [] });
    const body = request.body as {
      phase: string;
      repository: string;
      actor: string | null;
      updates: RefUpdate[];
    };
    const [owner = '', name = ''] = body.repository.split('/');
    const repo = state.requireRepository(owner, name);
    const appId = body.actor?.startsWith('app:') ? Number(body.actor.slice(4)) : null;
    const pusher: Pusher = appId === null ? { kind: 'admin' } : { kind: 'app', appId, login: botLogin(app) };
    // The hooks (git-http.ts) ask for plain text: `ok` or `refused`, then GitHub's lines.
    const answer = (ok: boolean, lines: string[]) =>
      (request.query as { format?: string }).format === 'text'
        ? reply.type('text/plain').send([ok ? 'ok' : 'refused', ...lines, ''].join('\n'))
        : { ok, lines };
    if (body.phase === 'pre-receive') {
      const lines = state.refusals(repo, body.updates, pusher);
      return answer(lines.length === 0, lines);
    }
    await state.afterPush(repo, body.updates, pusher);
    return answer(true, []);
  });

  // ---- the OAuth web flow's token exchange (the web host's, not the REST API's) ----------------
  fastify.post('/login/oauth/access_token', (request, reply) => {
    requests.push({
      kind: 'rest',
      method: 'POST',
      path: '/login/oauth/access_token',
      operationId: null,
      status: 200,
    });
    const body = request.body;
    const form: Record<string, string | undefined> = {};
    if (Buffer.isBuffer(body)) for (const [k, v] of new URLSearchParams(body.toString('utf8'))) form[k] = v;
    else if (body && typeof body === 'object')
      for (const [k, v] of Object.entries(body)) form[k] = typeof v === 'string' ? v : undefined;
    return reply.code(200).send(users.exchange(form));
  });

  // ---- REST -----------------------------------------------------------------------------------
  fastify.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      const url = new URL(request.url, 'http://fakehub.invalid');
      const record: RequestRecord = {
        kind: 'rest',
        method: request.method,
        path: request.url,
        operationId: null,
        status: 0,
      };
      requests.push(record);
      const op = contract.match(request.method, url.pathname);
      if (!op) {
        violations.push(`${request.method} ${url.pathname} matches no operation of the contract subset`);
        record.status = 404;
        return reply.code(404).send({ message: 'Not Found', documentation_url: DOCS });
      }
      record.operationId = op.operationId;
      const info: RestInfo = { op, record, bucket: 'anonymous' };
      restInfo.set(request, info);

      const invalidJson = request.body === INVALID_JSON;
      const checked = contract.validateRequest(
        op,
        url.searchParams,
        invalidJson ? undefined : request.body,
        request.body !== undefined,
      );
      const requestViolations = invalidJson
        ? [`${op.operationId}: the request body is not JSON`]
        : checked.violations;
      violations.push(...requestViolations.map((v) => `request ${request.method} ${url.pathname}: ${v}`));

      const credentialKind = CREDENTIAL_BY_OPERATION.get(`${op.method} ${op.template}`)!;
      const credential = credentialOf(request.headers.authorization);
      const looksLikeJwt = (secret: string) => secret.split('.').length === 3 && secret.startsWith('eyJ');
      let installationId: number | null = null;
      let userLogin: string | null = null;
      if (credentialKind === 'user-token') {
        const login = credential?.scheme === 'bearer' ? users.loginOf(credential.secret) : null;
        if (!login)
          return reply.code(401).send({
            message: 'Requires authentication',
            documentation_url: DOCS,
            status: '401',
          });
        userLogin = login;
        info.bucket = `user:${login}`;
      } else if (credentialKind === 'app-jwt') {
        if (!credential || credential.scheme !== 'bearer')
          return reply.code(401).send({
            message: 'A JSON web token could not be decoded',
            documentation_url: DOCS,
            status: '401',
          });
        if (!looksLikeJwt(credential.secret)) {
          violations.push(`${op.operationId} needs the App's JWT; the request carried an installation token`);
          return reply.code(401).send({
            message: 'A JSON web token could not be decoded',
            documentation_url: DOCS,
            status: '401',
          });
        }
        const check = verifyAppJwt(credential.secret, app);
        if (!check.ok)
          return reply.code(401).send({ message: check.message, documentation_url: DOCS, status: '401' });
        info.bucket = `app:${app.id}`;
      } else {
        if (!credential)
          return reply.code(404).send({ message: 'Not Found', documentation_url: DOCS, status: '404' });
        if (looksLikeJwt(credential.secret))
          violations.push(`${op.operationId} needs an installation token; the request carried the App's JWT`);
        const token = tokens.check(credential.secret);
        if (!token)
          return reply.code(401).send({ message: 'Bad credentials', documentation_url: DOCS, status: '401' });
        installationId = token.installationId;
        info.bucket = `installation:${installationId}`;
      }

      const waitSeconds = writeRate.admit(info.bucket, request.method);
      if (waitSeconds !== null)
        return reply
          .code(403)
          .header('retry-after', String(waitSeconds))
          .send({
            message: `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${request.id}.`,
            documentation_url: SECONDARY_DOCS,
          });
      if (secondary.remaining > 0) {
        secondary.remaining -= 1;
        return reply
          .code(secondary.status)
          .header('retry-after', String(secondary.retryAfter))
          .send({
            message: `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${request.id}.`,
            documentation_url: SECONDARY_DOCS,
          });
      }
      const fault = faults.get(op.operationId);
      if (fault && fault.remaining > 0) {
        fault.remaining -= 1;
        if (fault.failure === 'network') {
          // No answer at all: the client sees its connection closed (a reset, a proxy giving up).
          record.status = 0;
          reply.hijack();
          request.raw.socket.destroy();
          return reply;
        }
        return reply.code(fault.failure.status).send({
          message: fault.failure.status === 503 ? 'Service Unavailable' : 'Server Error',
          documentation_url: DOCS,
        });
      }
      if (invalidJson)
        return reply.code(400).send({ message: 'Problems parsing JSON', documentation_url: DOCS });
      if (requestViolations.length > 0)
        return reply.code(422).send({
          message: 'Validation Failed',
          errors: requestViolations.map((message) => ({
            resource: op.operationId,
            code: 'invalid',
            message,
          })),
          documentation_url: DOCS,
        });

      const ctx: RestContext = {
        state,
        app,
        base: baseUrl,
        tokenLifetimeSeconds,
        mintToken: (id) => tokens.mint(id, app.id, tokenLifetimeSeconds),
        mergeableUnknown,
        mergeRequestedTwice,
        webhooks: dispatcher.log,
        users,
      };
      const answer = await handleRest(ctx, {
        operationId: op.operationId,
        params: checked.pathParams,
        query: url.searchParams,
        body: request.body,
        installationId,
        userLogin,
      });
      if (answer.headers) void reply.headers(answer.headers);
      return reply.code(answer.status).send(answer.body ?? '');
    },
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    const info = restInfo.get(request);
    if (!info) return done(null, payload);
    let text =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    if (corrupt && text.startsWith('{')) {
      const mutate = corrupt;
      corrupt = null;
      const body = JSON.parse(text) as unknown;
      text = JSON.stringify(mutate(body) ?? body);
    }
    const status = reply.statusCode;
    const where = `response ${request.method} ${info.record.path.split('?')[0]}`;
    violations.push(...contract.validateResponse(info.op, status, text).map((v) => `${where}: ${v}`));
    const bucket = bucketOf(info.bucket);
    let counted = true;
    if (request.method === 'GET' && status === 200) {
      const etag = `W/"${createHash('sha256').update(text).digest('hex').slice(0, 40)}"`;
      void reply.header('etag', etag);
      const wanted = String(request.headers['if-none-match'] ?? '')
        .split(',')
        .map((t) => t.trim());
      if (wanted.includes(etag) || wanted.includes(etag.slice(2))) {
        void reply.code(304);
        reply.removeHeader('content-type');
        text = '';
        counted = false;
      }
    }
    if (counted) bucket.used += 1;
    void reply.headers({
      'x-ratelimit-limit': String(bucket.limit),
      'x-ratelimit-remaining': String(Math.max(bucket.limit - bucket.used, 0)),
      'x-ratelimit-used': String(bucket.used),
      'x-ratelimit-reset': String(bucket.reset),
      'x-ratelimit-resource': 'core',
      'x-github-request-id': String(request.id),
      'x-github-api-version-selected': '2022-11-28',
    });
    info.record.status = reply.statusCode;
    done(null, text);
  });

  const address = await fastify.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = address;

  const createRepository = async (input: {
    installationId: number;
    owner: string;
    name: string;
    defaultBranch?: string;
  }) => {
    const repository = await state.createRepository({
      ...input,
      defaultBranch: input.defaultBranch ?? 'main',
    });
    await installHooks(
      repository.bare,
      `${address}/_fakehub/hooks`,
      hookSecret,
      `${repository.owner}/${repository.name}`,
    );
    return repository;
  };

  const requirePull = (owner: string, repo: string, number: number) => {
    const repository = state.requireRepository(owner, repo);
    const pr = state.pull(repository, number);
    if (!pr) throw new Error(`fakehub: ${owner}/${repo}#${number} does not exist`);
    return { repository, pr };
  };

  const hub: FakeHub = {
    url: address,
    app,
    state,
    requests,
    gitUrl: (owner, name) => `${address}/${owner}/${name}.git`,
    createInstallation: (input) => state.createInstallation(input.account, input.accountType),
    createRepository: (input) => createRepository(input),
    async addRepositoryToInstallation(input) {
      const repository = await createRepository(input);
      const installation = state.installations.get(input.installationId)!;
      state.announceRepositoriesAdded(installation.id, [repository], {
        login: installation.account,
        type: 'User',
      });
      return repository;
    },
    installationToken(installationId) {
      if (!state.installations.has(installationId))
        throw new Error(`fakehub: installation ${installationId} does not exist`);
      return tokens.mint(installationId, app.id, tokenLifetimeSeconds).token;
    },
    async openPullRequest(input) {
      const repository = state.requireRepository(input.owner, input.repo);
      return state.openPullRequest(repository, {
        head: input.head,
        base: input.base ?? repository.defaultBranch,
        title: input.title ?? `Change from ${input.head}`,
        author: input.author ?? 'octocat',
        draft: input.draft ?? false,
        body: input.body ?? null,
      });
    },
    closePullRequest(owner, repo, number) {
      state.closePullRequest(requirePull(owner, repo, number).pr);
    },
    async reopenPullRequest(owner, repo, number) {
      const { repository, pr } = requirePull(owner, repo, number);
      const refusal = await state.reopenPullRequest(repository, pr);
      if (refusal) throw new Error(`fakehub: ${owner}/${repo}#${number}: ${refusal}`);
    },
    async retargetPullRequest(owner, repo, number, base) {
      const { repository, pr } = requirePull(owner, repo, number);
      const refusal = await state.editPullRequest(repository, pr, { base });
      if (refusal) throw new Error(`fakehub: ${owner}/${repo}#${number}: ${refusal}`);
    },
    async pushPullRequest(owner, repo, number, sha) {
      const { repository, pr } = requirePull(owner, repo, number);
      await state.pushPullRequest(repository, pr, sha);
    },
    pullRequest: (owner, repo, number) => requirePull(owner, repo, number).pr,
    setCheckRun(owner, repo, sha, input) {
      const repository = state.requireRepository(owner, repo);
      const status = input.status ?? (input.conclusion ? 'completed' : 'in_progress');
      return state.recordCheckRun(
        repository,
        sha,
        {
          name: input.name,
          status,
          conclusion: status === 'completed' ? (input.conclusion ?? 'success') : null,
        },
        CI_APP,
      );
    },
    setStatus(owner, repo, sha, input) {
      const repository = state.requireRepository(owner, repo);
      const status: CommitStatus = {
        id: state.id(),
        sha,
        context: input.context,
        state: input.state,
        description: input.description ?? null,
        targetUrl: input.targetUrl ?? null,
        creator: CI_USER,
        createdAt: new Date(),
      };
      return state.recordStatus(repository, status, { login: CI_USER, type: 'User' });
    },
    setProtection(owner, repo, branch, protection) {
      const repository = state.requireRepository(owner, repo);
      if (protection) repository.protection.set(branch, protection);
      else repository.protection.delete(branch);
    },
    comments(owner, repo, number) {
      return state.commentsOf(state.requireRepository(owner, repo), number);
    },
    comment(owner, repo, number, input) {
      const { repository } = requirePull(owner, repo, number);
      const author: Actor = { login: input.author, type: input.author.endsWith('[bot]') ? 'Bot' : 'User' };
      return state.addComment(repository, number, input.body, author);
    },
    editComment(owner, repo, commentId, body) {
      const repository = state.requireRepository(owner, repo);
      const comment = state.comment(repository, commentId);
      if (!comment) throw new Error(`fakehub: comment ${commentId} does not exist in ${owner}/${repo}`);
      state.editCommentAs(repository, commentId, body, comment.author);
    },
    deleteComment(owner, repo, commentId) {
      const repository = state.requireRepository(owner, repo);
      const comment = state.comment(repository, commentId);
      if (!comment) throw new Error(`fakehub: comment ${commentId} does not exist in ${owner}/${repo}`);
      state.deleteComment(repository, commentId, comment.author);
    },
    setPermission(owner, repo, login, role) {
      state.setRole(state.requireRepository(owner, repo), login, role);
    },
    review: (owner, repo, number, login, reviewState) =>
      state.submitReview(requirePull(owner, repo, number).pr, login, reviewState),
    setDraft(owner, repo, number, draft) {
      state.setDraft(requirePull(owner, repo, number).pr, draft);
    },
    users,
    webhooks: dispatcher.api,
    knobs: {
      secondaryRateLimit(count, knob = {}) {
        secondary = {
          remaining: count,
          status: knob.status ?? 403,
          retryAfter: knob.retryAfterSeconds ?? 60,
        };
      },
      secondaryLimitRate: (limit) => writeRate.set(limit),
      secondaryLimitStats: () => writeRate.stats(),
      mergeableUnknown(owner, repo, number, reads) {
        const { repository } = requirePull(owner, repo, number);
        mergeableUnknown.set(`${repository.id}#${number}`, reads);
      },
      mergeRequestedTwice(owner, repo, number) {
        const { repository } = requirePull(owner, repo, number);
        mergeRequestedTwice.add(`${repository.id}#${number}`);
      },
      expireTokens: () => tokens.expireAll(),
      corruptNextResponse(mutate) {
        corrupt = mutate;
      },
      failOperation(operationId, times, failure = { status: 503 }) {
        faults.set(operationId, { remaining: times, failure });
      },
    },
    violations,
    takeViolations: () => violations.splice(0, violations.length),
    assertNoViolations() {
      const found = violations.splice(0, violations.length);
      if (found.length > 0)
        throw new Error(`fakehub recorded ${found.length} contract violation(s):\n- ${found.join('\n- ')}`);
    },
    async close() {
      const step = slowStepReporter('fakehub close');
      await step('webhook dispatcher', () => dispatcher.close());
      await step('HTTP server', () => fastify.close());
      await state.dispose();
      broker.close();
      backends.close();
    },
  };
  return hub;
}
