/**
 * meta.json across the versions the CLI has written: each of Trunk's schemas (V0_5_29 … V0_7_8,
 * bundle/src/bundle_meta.rs) is read, named, and mapped to the same fields; a missing or malformed
 * field railyard needs refuses the bundle with a sentence naming it.
 */
import { BundleRefusal, metaSchemaOf, parseBundleMeta } from '../../../../flaky/bundle';
import { metaJson } from '../../../support/bundles';

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Fields each version added, newest first (bundle_meta.rs); an older document lacks them all. */
const ADDED: readonly (readonly [string, readonly string[]])[] = [
  ['V0_7_8', ['failed_tests']],
  ['V0_7_7', ['internal_bundled_file']],
  ['V0_7_6', ['variant']],
  ['V0_6_3', ['bundle_upload_id_v2']],
  ['V0_6_2', ['command_line', 'trunk_envs']],
  ['V0_5_34', ['num_files', 'num_tests']],
];

/** The CLI's newest meta, with the fields later versions added taken away. */
function versioned(schema: string): Record<string, unknown> {
  const meta = metaJson({ junit: ['reports/a.xml'], variant: 'linux', envs: { GITHUB_JOB: 'test' } });
  for (const [version, fields] of ADDED) {
    if (version === schema) break;
    for (const field of fields) delete meta[field];
  }
  return meta;
}

describe('meta.json versions', () => {
  it.each([
    ['V0_7_8', 'V0_7_8'],
    ['V0_7_7', 'V0_7_7'],
    // V0_7_6 and V0_6_3 require no more than V0_7_7 (their additions are optional), as in Trunk's reader.
    ['V0_7_6', 'V0_7_7'],
    ['V0_6_3', 'V0_7_7'],
    ['V0_6_2', 'V0_6_2'],
    ['V0_5_34', 'V0_5_34'],
    ['V0_5_29', 'V0_5_29'],
  ])(
    'reads a %s document (named %s) with the same repository, commit, branch and files',
    (version, named) => {
      const meta = parseBundleMeta(bytes(versioned(version)));
      expect(meta.schema).toBe(named);
      expect(meta.repo).toEqual({ host: 'github.com', owner: 'acme', name: 'shop' });
      expect(meta.commitSha).toBe('c0ffee0000000000000000000000000000000001');
      expect(meta.branch).toBe('main');
      expect(meta.originalPaths.get('junit/0')).toBe('reports/a.xml');
      expect(meta.resultSource).toBe('junit');
      expect(meta.envs.get('GITHUB_JOB')).toBe('test');
      // The variant arrived in V0_7_6.
      expect(meta.variant).toBe(['V0_7_8', 'V0_7_7', 'V0_7_6'].includes(version) ? 'linux' : '');
    },
  );

  it('names a document missing a base field "partial" and still reads it', () => {
    const meta = versioned('V0_5_29');
    delete meta.tags;
    delete meta.org;
    expect(metaSchemaOf(meta)).toBe('partial');
    expect(parseBundleMeta(bytes(meta)).commitSha).toBe('c0ffee0000000000000000000000000000000001');
  });

  it('ignores unknown fields and non-string envs', () => {
    const meta = { ...metaJson({ junit: ['a.xml'] }), from_the_future: { x: 1 }, envs: { A: 'a', B: 2 } };
    const read = parseBundleMeta(bytes(meta));
    expect([...read.envs]).toEqual([['A', 'a']]);
  });

  it('reads the protobuf reports when no file set lists a JUnit file', () => {
    const read = parseBundleMeta(bytes(metaJson({ internal: ['rspec/report.bin'], internalBundled: true })));
    expect(read.resultSource).toBe('internal');
    expect(read.originalPaths.get('internal/0')).toBe('rspec/report.bin');
    expect(read.originalPaths.get('internal.bin')).toBe('/tmp/internal.bin');
  });
});

describe('meta.json refusals', () => {
  const refusal = (input: Uint8Array) => {
    try {
      parseBundleMeta(input);
    } catch (err) {
      expect(err).toBeInstanceOf(BundleRefusal);
      return (err as BundleRefusal).message;
    }
    throw new Error('not refused');
  };
  const without = (path: string[]) => {
    const meta = metaJson({ junit: ['a.xml'] });
    let at: Record<string, unknown> = meta;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    delete at[path[path.length - 1]!];
    return bytes(meta);
  };

  it.each([
    [Buffer.from('{not json'), "The bundle's meta.json is not valid JSON."],
    [bytes([1, 2]), "The bundle's meta.json is not a JSON object."],
    [without(['repo', 'repo_head_sha']), "The bundle's meta.json has no field 'repo.repo_head_sha'."],
    [without(['repo', 'repo_head_branch']), "The bundle's meta.json has no field 'repo.repo_head_branch'."],
    [without(['repo', 'repo', 'name']), "The bundle's meta.json has no field 'repo.repo.name'."],
    [without(['file_sets']), "The bundle's meta.json has no field 'file_sets'."],
  ])('refuses %#', (input, sentence) => {
    expect(refusal(input)).toBe(sentence);
  });

  it('refuses an empty branch, a control character and an over-long commit, naming the field', () => {
    expect(refusal(bytes(metaJson({ junit: ['a'], branch: ' ' })))).toBe(
      "The bundle's meta.json field 'repo.repo_head_branch' must not be empty.",
    );
    expect(refusal(bytes(metaJson({ junit: ['a'], variant: 'a\u0007b' })))).toBe(
      "The bundle's meta.json field 'variant' must not contain control characters.",
    );
    expect(refusal(bytes(metaJson({ junit: ['a'], sha: 'f'.repeat(101) })))).toMatch(
      /^The bundle's meta.json field 'repo.repo_head_sha' .*100/,
    );
  });
});
