/**
 * The repository key (DESIGN §3; glossary: repository): `{host, owner, name}` exactly as the API carries
 * it, with `owner` possibly holding `/` (GitLab subgroups). It is the one type every layer names a
 * repository by: the API's request schemas, the workflows' keys and inputs, the git host, the stores and
 * the flaky-test ids. So no layer translates between look-alike shapes, and a field added here reaches
 * them all.
 *
 * The fields are compared as given; case rules belong to whoever compares (ownership is
 * case-insensitive, workflow ids are not).
 */
export interface RepositoryKey {
  readonly host: string;
  readonly owner: string;
  readonly name: string;
}

/** `host/owner/name`: how operators see a repository (search attribute, summaries, logs). */
export function repositoryLabel(repo: RepositoryKey): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}
