/**
 * Which checks must pass for a test run on GitHub, when the queue names none (`requiredStatuses`):
 *  1. the repository's `.trunk/trunk.yaml` at the tested commit, `merge.required_statuses` (Trunk's own
 *     file, so teams coming from Trunk change nothing; read at the tested commit so a PR that changes
 *     the list is tested with the list it brings);
 *  2. the target branch's protection: the `required_status_checks` rules of the rulesets that apply to
 *     it, then classic branch protection's required status checks.
 * The first source that names at least one context wins. None: `{ contexts: [], source: null }`, and
 * the run cannot start (the caller says what to configure).
 *
 * Bounds (the file is tenant data that shared code parses): at most MAX_FILE_BYTES, YAML aliases
 * limited, at most MAX_CONTEXTS names of at most MAX_CONTEXT_CHARS characters each. A file that does
 * not parse is reported, not skipped, so a typo cannot silently fall through to another source.
 */
import { parse } from 'yaml';
import type { RequiredChecks } from '../../git/git-host';
import type { GitHubRest } from '../app/rest-client';
import { GitHubApiError } from '../app/rest-client';

export const TRUNK_CONFIG_PATH = '.trunk/trunk.yaml';
export const MAX_FILE_BYTES = 256 * 1024;
export const MAX_CONTEXTS = 50;
export const MAX_CONTEXT_CHARS = 255;

type RequiredChecksSource = Extract<RequiredChecks, { kind: 'found' }>['source'];

/** Pure: `merge.required_statuses` of a trunk.yaml text; `none` when the file names none. */
export function requiredFromTrunkConfig(text: string): RequiredChecks {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES)
    return { kind: 'invalid', detail: `${TRUNK_CONFIG_PATH} is larger than ${MAX_FILE_BYTES} bytes.` };
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 50, uniqueKeys: false });
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : 'unreadable';
    return { kind: 'invalid', detail: `${TRUNK_CONFIG_PATH} is not valid YAML: ${why}` };
  }
  const merge = (doc as { merge?: unknown } | null)?.merge;
  const list = (merge as { required_statuses?: unknown } | null | undefined)?.required_statuses;
  if (list === undefined || list === null) return { kind: 'none' };
  if (!Array.isArray(list) || !list.every((c) => typeof c === 'string'))
    return {
      kind: 'invalid',
      detail: `${TRUNK_CONFIG_PATH}: merge.required_statuses must be a list of names.`,
    };
  return named(list, 'trunk_config', `${TRUNK_CONFIG_PATH}: merge.required_statuses`);
}

function named(list: string[], source: RequiredChecksSource, where: string): RequiredChecks {
  const contexts = [...new Set(list.map((c) => c.trim()).filter((c) => c.length > 0))];
  if (contexts.length > MAX_CONTEXTS)
    return {
      kind: 'invalid',
      detail: `${where} names ${contexts.length} checks; at most ${MAX_CONTEXTS} are allowed.`,
    };
  const long = contexts.find((c) => c.length > MAX_CONTEXT_CHARS);
  if (long !== undefined)
    return { kind: 'invalid', detail: `${where} has a name longer than ${MAX_CONTEXT_CHARS} characters.` };
  return contexts.length === 0 ? { kind: 'none' } : { kind: 'found', contexts, source };
}

interface Rule {
  type: string;
  parameters?: { required_status_checks?: { context: string }[] };
}

/** The target branch's required checks from rulesets, then classic protection. */
export async function requiredFromProtection(
  client: GitHubRest,
  repo: { owner: string; name: string },
  branch: string,
): Promise<RequiredChecks> {
  const params = { owner: repo.owner, repo: repo.name, branch };
  const rules = await client.request<Rule[]>('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
    ...params,
    per_page: 100,
  });
  const fromRules = rules.data
    .filter((r) => r.type === 'required_status_checks')
    .flatMap((r) => r.parameters?.required_status_checks?.map((c) => c.context) ?? []);
  if (fromRules.length > 0) return named(fromRules, 'branch_protection', `the rulesets of ${branch}`);
  try {
    const classic = await client.request<{ contexts?: string[]; checks?: { context: string }[] }>(
      'GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
      params,
    );
    const contexts = [...(classic.data.contexts ?? []), ...(classic.data.checks ?? []).map((c) => c.context)];
    return named(contexts, 'branch_protection', `the branch protection of ${branch}`);
  } catch (err) {
    // 404: not protected or no required checks. 403: the App may not read protection (no
    // Administration read permission); rulesets were readable, so there is nothing more to learn.
    if (err instanceof GitHubApiError && (err.status === 404 || err.status === 403)) return { kind: 'none' };
    throw err;
  }
}
