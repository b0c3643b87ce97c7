/**
 * Repositories for operators: creating one on the local host, and ownership
 * (docs/adr/0006-repository-ownership.md):
 *   npm run repos -- create [--org <slug>] <host>/<owner>/<name>  a bare repository on the local host
 *                                                                 (under RAILYARD_GIT_ROOT), claimed
 *                                                                 for <slug> when given
 *   npm run repos -- add --org <slug> <host>/<owner>/<name>     claims an unclaimed repository
 *   npm run repos -- transfer --org <slug> <host>/<owner>/<name> gives a claimed repository to <slug>
 *   npm run repos -- remove <host>/<owner>/<name>               removes the claim
 *   npm run repos -- list [--org <slug>]                         also prints each public id (fork PRs)
 * The owner may contain `/` (GitLab subgroups): the host is the first segment, the name the last.
 * An organisation named by --org is created when it does not exist yet, as `npm run keys` does.
 * Uses DATABASE_URL, or the database `npm start` runs (.data/database-url).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { checkRepositoryKey } from '../git/names';
import { initBareRepository } from '../git/repository-path';
import { createRepositoryOwnerStore } from '../stores/repository-owners';
import { repositoryLabel, type RepositoryKey } from '../contract';
import { dataDir, PROJECT_ROOT } from './lib/data-dir';
import { organisationIdOf, runOperatorCommand, slugOf, UsageError } from './lib/operator-command';

const USAGE = `usage: npm run repos -- create [--org <slug>] <host>/<owner>/<name>
       npm run repos -- add --org <slug> <host>/<owner>/<name>
       npm run repos -- transfer --org <slug> <host>/<owner>/<name>
       npm run repos -- remove <host>/<owner>/<name>
       npm run repos -- list [--org <slug>]`;

function repositoryOf(arg: string | undefined): RepositoryKey {
  if (!arg) throw new UsageError(USAGE);
  const parts = arg.split('/');
  if (parts.length < 3)
    throw new UsageError(`"${arg}" is not <host>/<owner>/<name>, for example local/acme/app.`);
  const repo = { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! };
  const check = checkRepositoryKey(repo);
  if (!check.ok) throw new UsageError(`"${arg}": ${check.problem}.`);
  return repo;
}

async function run(
  pool: Pool,
  command: string | undefined,
  arg: string | undefined,
  org?: string,
): Promise<number> {
  const owners = createRepositoryOwnerStore(pool, { maxPerOrganisation: Number.MAX_SAFE_INTEGER });
  switch (command) {
    case 'create': {
      const repo = repositoryOf(arg);
      const root = process.env.RAILYARD_GIT_ROOT
        ? path.resolve(PROJECT_ROOT, process.env.RAILYARD_GIT_ROOT)
        : path.join(dataDir(), 'git');
      const bare = await initBareRepository(root, repo, { defaultBranch: 'main' });
      console.log(`Created ${repositoryLabel(repo)} on the local host: ${bare}`);
      if (org) {
        const claimed = await run(pool, 'add', arg, org);
        if (claimed !== 0) return claimed;
      }
      console.log(
        [
          'Push its target branch, then open pull requests by pushing to refs/pull/<n>/head:',
          `  git remote add railyard ${bare}`,
          '  git push railyard main',
          '  git push railyard my-change:refs/pull/1/head',
        ].join('\n'),
      );
      return 0;
    }
    case 'add': {
      const slug = slugOf(org);
      const repo = repositoryOf(arg);
      const result = await owners.claim(await organisationIdOf(pool, slug), repo, 'operator');
      switch (result.kind) {
        case 'claimed':
          console.log(`${repositoryLabel(repo)} now belongs to organisation "${slug}".`);
          return 0;
        case 'already_yours':
          console.log(`${repositoryLabel(repo)} already belongs to organisation "${slug}".`);
          return 0;
        case 'taken': {
          const current = (await owners.list()).find((o) => sameRepository(o, repo));
          console.error(
            `${repositoryLabel(repo)} belongs to organisation "${current?.organisationSlug ?? '?'}"; use \`npm run repos -- transfer --org ${slug} ${repositoryLabel(repo)}\` to move it.`,
          );
          return 1;
        }
        case 'limit_reached':
          console.error(`Organisation "${slug}" is at its limit of ${result.limit} repositories.`);
          return 1;
      }
      break;
    }
    case 'transfer': {
      const slug = slugOf(org);
      const repo = repositoryOf(arg);
      const moved = await owners.transfer(repo, await organisationIdOf(pool, slug));
      console.log(
        moved
          ? `${repositoryLabel(repo)} now belongs to organisation "${slug}".`
          : `${repositoryLabel(repo)} has no owner; use \`npm run repos -- add\` to claim it.`,
      );
      return moved ? 0 : 1;
    }
    case 'remove': {
      const repo = repositoryOf(arg);
      const removed = await owners.remove(repo);
      console.log(
        removed ? `${repositoryLabel(repo)} has no owner now.` : `${repositoryLabel(repo)} had no owner.`,
      );
      return removed ? 0 : 1;
    }
    case 'list': {
      const { rows } = org
        ? await pool.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [slugOf(org)])
        : { rows: [] };
      if (org && rows.length === 0) {
        console.log(`No organisation "${org}".`);
        return 0;
      }
      const listed = await owners.list(rows[0]?.id);
      for (const o of listed)
        console.log(
          [
            o.organisationSlug,
            repositoryLabel(o),
            `claimed ${o.claimedAt.toISOString()} (${o.claimedBy})`,
            `public id ${o.publicId}`,
          ].join('  '),
        );
      if (listed.length === 0) console.log('No repositories are claimed.');
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
  return 1;
}

const sameRepository = (a: RepositoryKey, b: RepositoryKey) =>
  a.host.toLowerCase() === b.host.toLowerCase() &&
  a.owner.toLowerCase() === b.owner.toLowerCase() &&
  a.name.toLowerCase() === b.name.toLowerCase();

const { positionals, values } = parseArgs({ allowPositionals: true, options: { org: { type: 'string' } } });
runOperatorCommand('repos', (pool) => run(pool, positionals[0], positionals[1], values.org));
