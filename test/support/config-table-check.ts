/**
 * The comparison behind test/unit/platform/config-table.test.ts, kept pure so that each kind of problem
 * can be shown to be caught on a made-up table: it takes what the code reads, the README's rows,
 * KNOWN_VARIABLES and the code's defaults, and returns one plain sentence per problem, by kind.
 */
import type { Readers, TableRow } from './config-sources';

/** A default the code applies, and which loader applies it. */
export interface CodeDefault {
  value: string;
  from: string;
}

export interface TableInput {
  read: Readers;
  table: readonly TableRow[];
  known: ReadonlySet<string>;
  defaults: ReadonlyMap<string, CodeDefault>;
}

export interface TableProblems {
  /** Read by the code or docker-compose.yml, but no README row. */
  undocumented: string[];
  /** A README row for a variable nothing reads. */
  documentedUnread: string[];
  /** Rows that name no variable, abbreviate one (`_PORT`), or repeat one. */
  malformed: string[];
  /** A row whose default is not the one the code applies. */
  wrongDefault: string[];
  /** Read, but parseEnv would reject it as an unknown RAILYARD_* setting. */
  notKnown: string[];
  /** In KNOWN_VARIABLES, but nothing reads it. */
  knownUnread: string[];
}

const readersOf = (read: Readers, name: string): string =>
  `${name} (read in ${[...(read.get(name) ?? [])].join(', ')})`;

export function checkTable({ read, table, known, defaults }: TableInput): TableProblems {
  const names = table.flatMap((row) => row.names);
  const documented = new Set(names);
  const readNames = [...read.keys()].sort();

  const malformed = table.flatMap((row) => [
    ...row.partial.map((t) => `README.md:${row.line}: \`${t}\` is not a full variable name`),
    ...(row.names.length === 0 ? [`README.md:${row.line}: the row names no variable`] : []),
    ...(row.defaults.length !== row.names.length
      ? [`README.md:${row.line}: ${row.names.length} variables but ${row.defaults.length} defaults`]
      : []),
  ]);
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i)))
    malformed.push(`README.md documents ${name} more than once`);

  const wrongDefault = table.flatMap((row) =>
    row.names.flatMap((name, i) => {
      const code = defaults.get(name);
      if (code === undefined) return [];
      // The first backticked value of the cell; words around it ("(50 MiB)") are for people.
      const stated = /`([^`]*)`/.exec(row.defaults[i] ?? '')?.[1];
      return stated === code.value
        ? []
        : [
            `README.md:${row.line}: ${name} defaults to \`${code.value}\` (${code.from}), not ${stated === undefined ? 'nothing' : `\`${stated}\``}`,
          ];
    }),
  );

  return {
    undocumented: readNames
      .filter((name) => !documented.has(name))
      .map((name) => `not in README.md's table: ${readersOf(read, name)}`),
    documentedUnread: [...documented]
      .filter((name) => !read.has(name))
      .sort()
      .map((name) => `README.md documents ${name}, which nothing reads`),
    malformed,
    wrongDefault,
    notKnown: readNames
      .filter((name) => !known.has(name))
      .map((name) => `not in KNOWN_VARIABLES: ${readersOf(read, name)}`),
    knownUnread: [...known]
      .filter((name) => !read.has(name))
      .sort()
      .map((name) => `KNOWN_VARIABLES lists ${name}, which nothing reads`),
  };
}
