/**
 * GitHub App installations for operators (docs/github.md, docs/adr/0008-github-installations.md):
 *   npm run github -- link --org <slug> --installation <id>   links it; its repositories become <slug>'s
 *   npm run github -- unlink --installation <id>              unlinks it; those repositories have no owner
 *   npm run github -- list [--org <slug>]
 * `link` asks GitHub about the installation and lists its repositories, so it needs the app's settings
 * (RAILYARD_GITHUB_APP_ID, a private key, RAILYARD_GITHUB_WEBHOOK_SECRET, and RAILYARD_GITHUB_API_URL for
 * GitHub Enterprise Server). An operator's link moves repositories another organisation had claimed
 * before; linking again lists the repositories again. An organisation named by --org is created when
 * it does not exist yet, as `npm run keys` does. Uses DATABASE_URL, or the database `npm start` runs.
 */
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { z } from 'zod';
import { createGitHubAppAuth, GitHubAuthError } from '../github/app/app-auth';
import { gitHubAppSettingsOf, gitHubConfigShape } from '../github/app/config';
import { createInstallationsApi } from '../github/app/installations-api';
import { linkInstallation } from '../github/app/linking';
import { ConfigError, parseEnv } from '../platform/env';
import { createGitHubInstallationStore } from '../github/store/installations';
import { organisationIdOf, runOperatorCommand, slugOf, UsageError } from './lib/operator-command';

const USAGE = `usage: npm run github -- link --org <slug> --installation <id>
       npm run github -- unlink --installation <id>
       npm run github -- list [--org <slug>]`;

function installationOf(arg: string | undefined): number {
  const id = Number(arg);
  if (!arg || !/^\d+$/.test(arg) || !Number.isSafeInteger(id) || id < 1)
    throw new UsageError('--installation must be the installation id, a positive whole number.');
  return id;
}

async function link(pool: Pool, slug: string, id: number): Promise<number> {
  const settings = gitHubAppSettingsOf(parseEnv(z.object(gitHubConfigShape), process.env));
  if (settings === null) {
    console.error(
      'GitHub is not configured: set RAILYARD_GITHUB_APP_ID, RAILYARD_GITHUB_PRIVATE_KEY_FILE and RAILYARD_GITHUB_WEBHOOK_SECRET (docs/github.md).',
    );
    return 2;
  }
  const github = await createInstallationsApi(settings, await createGitHubAppAuth(settings));
  const store = createGitHubInstallationStore(pool);
  const outcome = await linkInstallation(
    { store, github, host: settings.host },
    await organisationIdOf(pool, slug),
    id,
    'operator',
  );
  switch (outcome.kind) {
    case 'not_found':
      console.error(`GitHub has no installation ${id} of app ${settings.appId}.`);
      return 1;
    case 'suspended':
      console.error(`Installation ${id} is suspended on GitHub since ${outcome.suspendedAt.toISOString()}.`);
      return 1;
    case 'taken': {
      const current = await store.find(id);
      console.error(
        `Installation ${id} is linked to organisation "${current?.organisationSlug ?? '?'}"; unlink it first (npm run github -- unlink --installation ${id}).`,
      );
      return 1;
    }
    case 'linked':
    case 'already_yours': {
      const { installation, sync } = outcome;
      console.log(
        `Installation ${id} (${installation.accountLogin}) ${outcome.kind === 'linked' ? 'is now linked to' : 'was already linked to'} organisation "${slug}".`,
      );
      if (sync === null) {
        console.error(
          `${outcome.listingError ?? 'Its repositories could not be listed'} Link it again to retry.`,
        );
        return 1;
      }
      console.log(`It covers ${sync.covered} repositories (${sync.added} added, ${sync.removed} removed).`);
      for (const r of sync.takenOver)
        console.log(
          `${r.host}/${r.owner}/${r.name} moved to "${slug}" from the organisation that claimed it.`,
        );
      return 0;
    }
  }
}

async function run(pool: Pool, command: string | undefined, values: { org?: string; installation?: string }) {
  const store = createGitHubInstallationStore(pool);
  switch (command) {
    case 'link':
      return link(pool, slugOf(values.org), installationOf(values.installation));
    case 'unlink': {
      const id = installationOf(values.installation);
      const unlinked = await store.unlink(id);
      console.log(
        unlinked
          ? `Installation ${id} is unlinked; its repositories have no owner now.`
          : `Installation ${id} was not linked.`,
      );
      return unlinked ? 0 : 1;
    }
    case 'list': {
      const { rows } = values.org
        ? await pool.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [
            slugOf(values.org),
          ])
        : { rows: [] };
      if (values.org && rows.length === 0) {
        console.log(`No organisation "${values.org}".`);
        return 0;
      }
      const listed = await store.list(rows[0]?.id);
      for (const i of listed)
        console.log(
          [
            i.organisationSlug,
            `installation ${i.installationId}`,
            `${i.host}/${i.accountLogin}`,
            `${i.repositories} repositories`,
            `linked ${i.linkedAt.toISOString()} (${i.linkedBy})`,
            ...(i.suspendedAt ? [`suspended ${i.suspendedAt.toISOString()}`] : []),
          ].join('  '),
        );
      if (listed.length === 0) console.log('No installations are linked.');
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { org: { type: 'string' }, installation: { type: 'string' } },
});
runOperatorCommand('github', (pool) => run(pool, positionals[0], values), {
  expected: (err): err is Error => err instanceof ConfigError || err instanceof GitHubAuthError,
});
