/**
 * Owners of a test file from the CODEOWNERS content sent with an upload. As in GitHub, the last
 * matching rule wins, and a matching rule with no owners means "nobody" (it deliberately un-owns the
 * path). Patterns are gitignore globs (the `codeowners` dialect of platform/glob.ts, the
 * semantics codeowners-utils had), compiled once per upload and matched in linear time.
 *
 * Reading is what codeowners-utils did: a line is cut at its first `#`, trimmed, and split on blank
 * space into a pattern and its owners; lines with nothing left are skipped. Bounds (a tenant's
 * CODEOWNERS runs in shared code): at most {@link CODEOWNERS_LIMITS}.maxRules rules of at most
 * maxPatternChars characters each; the upload schema refuses more with a 400 naming the field.
 *
 * Paths that are not plain relative paths (absolute, `..`, empty) have no owners: CODEOWNERS
 * patterns are relative to the repository root.
 */
import { OwnersMatching } from './owners-matching';

export type OwnersResolver = (filePath: string | undefined) => readonly string[];

export interface CodeownersLimits {
  /** Rules (non-blank, non-comment lines) one CODEOWNERS may hold. */
  readonly maxRules: number;
  /** Characters of one rule's pattern. */
  readonly maxPatternChars: number;
  /**
   * Matching steps one upload may spend on its test files (glob-nfa.ts counts them; one step is a
   * few nanoseconds): past it the upload is refused rather than hold a thread for long.
   */
  readonly maxMatchSteps: number;
}

export const CODEOWNERS_LIMITS: CodeownersLimits = {
  maxRules: 10_000,
  maxPatternChars: 1_000,
  maxMatchSteps: 100_000_000,
};

export interface CodeownersRule {
  /** 1-based line of the CODEOWNERS content. */
  readonly line: number;
  readonly pattern: string;
  readonly owners: readonly string[];
}

export type CodeownersReading =
  | { readonly kind: 'rules'; readonly rules: readonly CodeownersRule[] }
  /** `problem` completes "Field 'codeowners' …". */
  | { readonly kind: 'refused'; readonly problem: string };

const NO_OWNERS: readonly string[] = Object.freeze([]);

export function readCodeowners(
  content: string,
  limits: Pick<CodeownersLimits, 'maxRules' | 'maxPatternChars'> = CODEOWNERS_LIMITS,
): CodeownersReading {
  const rules: CodeownersRule[] = [];
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const hash = lines[i]!.indexOf('#');
    const text = (hash === -1 ? lines[i]! : lines[i]!.slice(0, hash)).trim();
    if (text === '') continue;
    const [pattern, ...owners] = text.split(/\s+/) as [string, ...string[]];
    if (pattern.length > limits.maxPatternChars)
      return {
        kind: 'refused',
        problem: `has a pattern of ${pattern.length} characters on line ${i + 1}; at most ${limits.maxPatternChars} are allowed`,
      };
    if (rules.length === limits.maxRules)
      return { kind: 'refused', problem: `has more than ${limits.maxRules} rules` };
    rules.push({ line: i + 1, pattern, owners: Object.freeze(owners) });
  }
  return { kind: 'rules', rules };
}

/**
 * Owners by file for trusted callers (tests, scripts): the rules are compiled once and every distinct
 * path is matched once. Uploads from the API are matched by matchUploadOwners instead, off the event
 * loop and within maxMatchSteps.
 */
export function createOwnersResolver(codeowners: string | undefined): OwnersResolver {
  const reading = readCodeowners(codeowners ?? '', { maxRules: Infinity, maxPatternChars: Infinity });
  if (reading.kind === 'refused') throw new Error(`CODEOWNERS ${reading.problem}`);
  const { rules } = reading;
  const matching = rules.length === 0 ? undefined : new OwnersMatching(rules.map((r) => r.pattern));
  const cache = new Map<string, readonly string[]>();
  return (filePath) => {
    if (matching === undefined || filePath === undefined) return NO_OWNERS;
    const path = repositoryRelative(filePath);
    if (path === undefined) return NO_OWNERS;
    const cached = cache.get(path);
    if (cached !== undefined) return cached;
    const owners = ownersOfRule(rules, matching.lastMatch(path));
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

export function ownersOfRule(rules: readonly CodeownersRule[], index: number): readonly string[] {
  return index < 0 ? NO_OWNERS : (rules[index]?.owners ?? NO_OWNERS);
}

/**
 * The path as the rules see it, or undefined when it is not a plain path inside the repository
 * (no owners then).
 */
export function repositoryRelative(filePath: string): string | undefined {
  const path = filePath
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
  const absolute = path.startsWith('/') || /^[A-Za-z]:/.test(path);
  // `.`, `...` or `.../x` name no file of the repository either (the old matcher threw on them).
  const dots = /^\.*\/|^\.+$/.test(path);
  if (path === '' || absolute || dots || path.split('/').some((segment) => segment === '..'))
    return undefined;
  return path;
}
