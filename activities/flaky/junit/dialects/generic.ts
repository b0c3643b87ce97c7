/**
 * The JUnit reading shared by every dialect: `classname` and `name` as written, `file` (or
 * `filepath`, the other spelling in the wild) when present, and the nearest testsuite's name as
 * `parent`, which is also what Trunk's analytics CLI puts in a test's identity.
 */
import { type RawCase } from '../raw';
import { type CaseIdentity } from './types';
import { optional } from '../values';

export function innermostSuiteName(raw: RawCase): string {
  return raw.suites[raw.suites.length - 1]?.name ?? '';
}

export function identifyGeneric(raw: RawCase): CaseIdentity {
  const { attributes } = raw;
  const suite = innermostSuiteName(raw);
  const file = nonEmpty(attributes.file) ?? nonEmpty(attributes.filepath);
  return {
    suite,
    classname: attributes.classname ?? '',
    name: attributes.name ?? '',
    parent: suite,
    ...optional('file', file === undefined ? undefined : normaliseFilePath(file)),
    ...optional('line', parseLine(attributes.line)),
  };
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Forward slashes and no leading `./`, so the same file has one spelling (ids and CODEOWNERS). */
export function normaliseFilePath(file: string): string {
  return file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

function parseLine(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
