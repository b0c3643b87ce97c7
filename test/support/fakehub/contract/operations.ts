/**
 * The GitHub REST operations fakehub serves, by method and OpenAPI path template. This list is the
 * single source of both the committed contract subset (scripts/github/extract-openapi.ts extracts
 * exactly these operations from `@octokit/openapi`) and the fake's router: an operation served but not
 * listed here has no contract and is refused by the contract check.
 *
 * `credential` says which credential GitHub accepts: the App's JWT, an installation token, or a user
 * access token (`ghu_…`, from the App's OAuth flow: a person acting through the App).
 */
export type OperationMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ServedOperation {
  method: OperationMethod;
  path: string;
  credential: 'app-jwt' | 'installation-token' | 'user-token';
}

export const SERVED_OPERATIONS: readonly ServedOperation[] = [
  { method: 'post', path: '/app/installations/{installation_id}/access_tokens', credential: 'app-jwt' },
  { method: 'get', path: '/repos/{owner}/{repo}/installation', credential: 'app-jwt' },
  { method: 'get', path: '/repos/{owner}/{repo}', credential: 'installation-token' },
  { method: 'get', path: '/repos/{owner}/{repo}/pulls', credential: 'installation-token' },
  { method: 'get', path: '/repos/{owner}/{repo}/pulls/{pull_number}', credential: 'installation-token' },
  // Draft-PR testing mode (createPrsForTestingBranches): a draft PR from each test branch.
  { method: 'post', path: '/repos/{owner}/{repo}/pulls', credential: 'installation-token' },
  {
    method: 'put',
    path: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    credential: 'installation-token',
  },
  { method: 'get', path: '/repos/{owner}/{repo}/git/ref/{ref}', credential: 'installation-token' },
  // Landing proof: the tree GitHub holds for the commit a landing would put on the target.
  {
    method: 'get',
    path: '/repos/{owner}/{repo}/git/commits/{commit_sha}',
    credential: 'installation-token',
  },
  // The preflight (github/host/preflight-branch.ts): a throw-away commit and test branch, then its removal.
  { method: 'post', path: '/repos/{owner}/{repo}/git/commits', credential: 'installation-token' },
  { method: 'post', path: '/repos/{owner}/{repo}/git/refs', credential: 'installation-token' },
  { method: 'patch', path: '/repos/{owner}/{repo}/git/refs/{ref}', credential: 'installation-token' },
  { method: 'delete', path: '/repos/{owner}/{repo}/git/refs/{ref}', credential: 'installation-token' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/check-runs', credential: 'installation-token' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/status', credential: 'installation-token' },
  { method: 'post', path: '/repos/{owner}/{repo}/statuses/{sha}', credential: 'installation-token' },
  { method: 'get', path: '/repos/{owner}/{repo}/rules/branches/{branch}', credential: 'installation-token' },
  { method: 'get', path: '/app/hook/deliveries', credential: 'app-jwt' },
  { method: 'post', path: '/app/hook/deliveries/{delivery_id}/attempts', credential: 'app-jwt' },
  // Commands in PR comments: who may command, and the acknowledgement.
  {
    method: 'get',
    path: '/repos/{owner}/{repo}/collaborators/{username}/permission',
    credential: 'installation-token',
  },
  {
    method: 'post',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    credential: 'installation-token',
  },
  { method: 'patch', path: '/repos/{owner}/{repo}/pulls/{pull_number}', credential: 'installation-token' },
  {
    method: 'get',
    path: '/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
    credential: 'installation-token',
  },
  { method: 'get', path: '/repos/{owner}/{repo}/contents/{path}', credential: 'installation-token' },
  {
    method: 'post',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    credential: 'installation-token',
  },
  // The PR presenter's (live comment, check run on the PR's head).
  {
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    credential: 'installation-token',
  },
  {
    method: 'patch',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    credential: 'installation-token',
  },
  { method: 'post', path: '/repos/{owner}/{repo}/check-runs', credential: 'installation-token' },
  {
    method: 'patch',
    path: '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    credential: 'installation-token',
  },
  // Readiness: which reviews a PR has, to say which review GitHub waits for.
  {
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    credential: 'installation-token',
  },
  // Fork PRs' setImpactedTargets (x-forked-workflow-run-id): the run must be the fork's.
  { method: 'get', path: '/repos/{owner}/{repo}/actions/runs/{run_id}', credential: 'installation-token' },
  // Linking an installation (github/app/linking.ts): the installation and the repositories it covers.
  { method: 'get', path: '/app/installations/{installation_id}', credential: 'app-jwt' },
  { method: 'get', path: '/installation/repositories', credential: 'installation-token' },
  // The proof that the person linking administers the account (github/app/user-proof.ts).
  { method: 'get', path: '/user', credential: 'user-token' },
  { method: 'get', path: '/user/installations', credential: 'user-token' },
  { method: 'get', path: '/user/memberships/orgs/{org}', credential: 'user-token' },
];

/** The package and file the subset is extracted from. */
export const OPENAPI_SOURCE = {
  package: '@octokit/openapi',
  version: '23.0.2',
  file: 'generated/api.github.com.json',
} as const;
