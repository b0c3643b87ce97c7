/** Claims a repository for an organisation by slug, as `npm run repos -- add` does (ADR 0006). */
import type { Pool } from 'pg';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import type { RepositoryKey } from '../../contract';

export async function claimRepository(pool: Pool, slug: string, repo: RepositoryKey): Promise<void> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [slug]);
  if (!rows[0]) throw new Error(`no organisation "${slug}"`);
  const result = await createRepositoryOwnerStore(pool).claim(rows[0].id, repo, 'operator');
  if (result.kind !== 'claimed' && result.kind !== 'already_yours')
    throw new Error(`could not claim ${repo.host}/${repo.owner}/${repo.name}: ${result.kind}`);
}
