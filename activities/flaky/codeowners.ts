/**
 * Owners of a test file from the CODEOWNERS content sent with an upload, matched with
 * codeowners-utils (gitignore-style patterns via the `ignore` package), never with hand-written
 * globs. As in GitHub, the last matching rule wins, and a matching rule with no owners means
 * "nobody" (it deliberately un-owns the path).
 *
 * A resolver parses the content once and remembers answers per file, since an upload has many
 * tests per file. It is a plain closure: no module state, nothing shared between uploads.
 *
 * Paths that are not plain relative paths (absolute, `..`, empty) have no owners: CODEOWNERS
 * patterns are relative to the repository root, and `ignore` throws on anything else.
 */
import { matchFile, parse, type CodeOwnersEntry } from 'codeowners-utils';

export type OwnersResolver = (filePath: string | undefined) => readonly string[];

const NO_OWNERS: readonly string[] = Object.freeze([]);

export function createOwnersResolver(codeowners: string | undefined): OwnersResolver {
  // codeowners-utils returns the rules in reverse file order, so its first match is the file's last.
  const entries: CodeOwnersEntry[] =
    codeowners === undefined ? [] : parse(codeowners.replace(/\r\n?/g, '\n'));
  const cache = new Map<string, readonly string[]>();
  return (filePath) => {
    if (entries.length === 0 || filePath === undefined) return NO_OWNERS;
    const path = repositoryRelative(filePath);
    if (path === undefined) return NO_OWNERS;
    const cached = cache.get(path);
    if (cached !== undefined) return cached;
    const owners = Object.freeze([...(matchFile(path, entries)?.owners ?? [])]);
    cache.set(path, owners);
    return owners;
  };
}

/** One-off lookup; prefer {@link createOwnersResolver} when resolving many files. */
export function resolveOwners(
  codeowners: string | undefined,
  filePath: string | undefined,
): readonly string[] {
  return createOwnersResolver(codeowners)(filePath);
}

function repositoryRelative(filePath: string): string | undefined {
  const path = filePath
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
  const absolute = path.startsWith('/') || /^[A-Za-z]:/.test(path);
  if (path === '' || absolute || path.split('/').some((segment) => segment === '..')) return undefined;
  return path;
}
