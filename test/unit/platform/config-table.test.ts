/**
 * The README's configuration table is complete and true: every variable railyard's code or
 * docker-compose.yml reads has a row, every row names a variable something reads, every such variable
 * is in KNOWN_VARIABLES (or `parseEnv` would reject it as a typo when someone exports it), and a row's
 * default is the one the code applies. Nothing here lists names: they are collected from the source
 * (test/support/config-sources.ts), so a new setting without its row fails this test, naming it.
 */
import { KNOWN_VARIABLES } from '../../../platform/env';
import {
  codeDefaults,
  codeFiles,
  composeVariables,
  configurationTable,
  directReads,
  merge,
  readsIn,
  schemaVariables,
  type Readers,
} from '../../support/config-sources';
import { checkTable, type TableInput } from '../../support/config-table-check';

const files = codeFiles();
const schemas = schemaVariables(files);
const read = merge(schemas, directReads(files), composeVariables());

let problems: ReturnType<typeof checkTable>;
let defaults: Awaited<ReturnType<typeof codeDefaults>>;
beforeAll(async () => {
  defaults = await codeDefaults(files);
  problems = checkTable({ read, table: configurationTable(), known: new Set(KNOWN_VARIABLES), defaults });
});

describe('the sources are found', () => {
  // Guards against a scanner that silently finds nothing (a renamed folder, a changed schema style).
  test('config schemas, direct reads, compose and the README table all yield variables', () => {
    expect(schemas.size).toBeGreaterThan(10);
    expect(directReads(files).size).toBeGreaterThan(3);
    expect(composeVariables().size).toBeGreaterThan(3);
    expect(configurationTable().length).toBeGreaterThan(10);
  });

  test('every variable a config loader returns was found by the schema scan', () => {
    expect([...defaults.keys()].filter((name) => !schemas.has(name))).toEqual([]);
  });
});

describe("the README's configuration table", () => {
  test('documents every variable the code and docker-compose.yml read', () => {
    expect(problems.undocumented).toEqual([]);
  });
  test('documents nothing that no code reads', () => {
    expect(problems.documentedUnread).toEqual([]);
  });
  test('names each variable in full, once', () => {
    expect(problems.malformed).toEqual([]);
  });
  test('states the default the code applies', () => {
    expect(problems.wrongDefault).toEqual([]);
  });
});

describe('KNOWN_VARIABLES', () => {
  test('holds every variable something reads', () => {
    expect(problems.notKnown).toEqual([]);
  });
  test('holds nothing that no code reads', () => {
    expect(problems.knownUnread).toEqual([]);
  });
});

describe('the check itself, on a made-up README', () => {
  const readme = [
    '## Configuration',
    '',
    '| variable | process | default | meaning |',
    '| --- | --- | --- | --- |',
    '| `APP_PORT` | api | `8081` (the usual) | listen port |',
    '| `APP_HOST` / `_NAME` | api | `0.0.0.0` / `x` | abbreviated |',
    '| `APP_GONE` | api | `1` | nothing reads it |',
    '| `APP_PORT` | api | `8081` | twice |',
    '',
    '## Next section',
    '',
    '| `NOT_IN_TABLE` | - | - | - |',
  ].join('\n');
  const readers = (...names: string[]): Readers =>
    new Map(names.map((name) => [name, new Set([`${name.toLowerCase()}.ts`])]));
  const input: TableInput = {
    read: readers('APP_PORT', 'APP_HOST', 'APP_SECRET'),
    table: configurationTable(readme),
    known: new Set(['APP_PORT', 'APP_HOST', 'APP_OLD']),
    defaults: new Map([['APP_PORT', { value: '8080', from: 'app/config.ts loadAppConfig' }]]),
  };

  test('reads only the rows of the Configuration section', () => {
    expect(input.table.map((row) => row.names)).toEqual([
      ['APP_PORT'],
      ['APP_HOST'],
      ['APP_GONE'],
      ['APP_PORT'],
    ]);
  });

  test('names every kind of problem, and the variable', () => {
    expect(checkTable(input)).toEqual({
      undocumented: ["not in README.md's table: APP_SECRET (read in app_secret.ts)"],
      documentedUnread: ['README.md documents APP_GONE, which nothing reads'],
      malformed: [
        'README.md:6: `_NAME` is not a full variable name',
        'README.md documents APP_PORT more than once',
      ],
      wrongDefault: [
        'README.md:5: APP_PORT defaults to `8080` (app/config.ts loadAppConfig), not `8081`',
        'README.md:8: APP_PORT defaults to `8080` (app/config.ts loadAppConfig), not `8081`',
      ],
      notKnown: ['not in KNOWN_VARIABLES: APP_SECRET (read in app_secret.ts)'],
      knownUnread: ['KNOWN_VARIABLES lists APP_OLD, which nothing reads'],
    });
  });
});

describe('the scan of direct reads', () => {
  test('finds the forms railyard uses, and leaves test plumbing and the platform out', () => {
    const ts = [
      "const a = process.env.APP_ONE ?? 'x';",
      "const b = process.env['APP_TWO'];",
      'if (!env.APP_THREE) env.APP_THREE = 1;',
      'const { APP_FOUR: _four, ...rest } = process.env;',
      'const c = process.env.TEST_DATABASE_URL ?? process.env.PATH;',
      'const notEnv = config.APP_FIVE;',
    ].join('\n');
    expect(readsIn('scripts/x.ts', ts).sort()).toEqual(['APP_FOUR', 'APP_ONE', 'APP_THREE', 'APP_TWO']);
    const sh = 'if [ "${RAILYARD_ONE:-}" = 1 ] || [ -n "$RAILYARD_TWO" ]; then LOCAL_THING=1; fi';
    expect(readsIn('scripts/x.sh', sh).sort()).toEqual(['RAILYARD_ONE', 'RAILYARD_TWO']);
  });
});
