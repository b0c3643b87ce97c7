/**
 * Where a flaky-test request applies: the caller's organisation (from the API key) and one of its
 * repositories. `org_url_slug` must name the key's own organisation, and the repository must exist in
 * it; anything else is a 404, so a key cannot even learn whether another organisation or its
 * repositories exist.
 */
import type { FastifyRequest } from 'fastify';
import type { FlakyStore, RepositoryRecord } from '../../../flaky/service';
import { KEY_PREFIX_LENGTH, type Organisation } from '../../../stores/api-keys';
import { notFound } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import type { RepositoryKey } from '../../../contract';

export function organisationFor(request: FastifyRequest, slug: string | undefined): Organisation {
  const organisation = organisationOf(request);
  if (slug !== undefined && slug.toLowerCase() !== organisation.slug)
    throw notFound(`Organisation '${slug}' was not found.`);
  return organisation;
}

export async function repositoryFor(
  store: FlakyStore,
  request: FastifyRequest,
  body: { repo: RepositoryKey; org_url_slug?: string },
): Promise<RepositoryRecord> {
  const organisation = organisationFor(request, body.org_url_slug);
  const repository = await store.findRepository(organisation.id, body.repo);
  if (repository === null) throw repositoryNotFound(body.repo);
  return repository;
}

export const repositoryNotFound = (repo: RepositoryKey) =>
  notFound(`Repository ${repo.host}/${repo.owner}/${repo.name} was not found.`);

export const testNotFound = (id: string, repo?: RepositoryKey) =>
  notFound(`Test case ${id} was not found${repo ? ` in ${repo.host}/${repo.owner}/${repo.name}` : ''}.`);

/** Who made a change: the actor the caller names, else the public prefix of the API key used. */
export function actorOf(request: FastifyRequest, named: string | undefined): string {
  if (named !== undefined && named.trim() !== '') return named.trim();
  const header = request.headers['x-api-token'];
  const token = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  return `api-key:${token.slice(0, KEY_PREFIX_LENGTH)}`;
}
