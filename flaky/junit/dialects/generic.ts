/**
 * The JUnit reading shared by every dialect: `classname` and `name` as written, `file` (or
 * `filepath`, the other spelling in the wild) when present, and the nearest testsuite's name as
 * `parent`, which is also what Trunk's analytics CLI puts in a test's identity.
 */
import { type RawCase } from '../raw';
import { type CaseIdentity } from './types';
import { type Mutable } from '../values';

export function innermostSuiteName(raw: RawCase): string {
  return raw.suites[raw.suites.length - 1]?.name ?? '';
}

export function identifyGeneric(raw: RawCase): CaseIdentity {
  const { attributes } = raw;
  const suite = innermostSuiteName(raw);
  const file = nonEmpty(attributes.file) ?? nonEmpty(attributes.filepath);
  const line = parseLine(attributes.line);
  // Built field by field (not with optional() spreads): this runs once per testcase.
  const identity: Mutable<CaseIdentity> = {
    suite,
    classname: attributes.classname ?? '',
    name: attributes.name ?? '',
    parent: suite,
  };
  if (file !== undefined) identity.file = normaliseFilePath(file);
  if (line !== undefined) identity.line = line;
  return identity;
}

export function nonEmpty(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Forward slashes and no leading `./`, so the same file has one spelling (ids and CODEOWNERS). */
export function normaliseFilePath(file: string): string {
  if (!file.includes('\\') && !file.startsWith('./')) return file;
  return file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

function parseLine(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
