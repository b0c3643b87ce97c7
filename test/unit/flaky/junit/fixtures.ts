import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { parseJunit, type ParsedJunitFile, type ParsedTestCase } from '../../../../flaky/junit';

export const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'junit');

/** Parses a fixture through a file stream with small chunks, as an HTTP body would arrive. */
export function parseFixture(name: string, highWaterMark = 64): Promise<ParsedJunitFile> {
  return parseJunit(createReadStream(join(FIXTURES, name), { highWaterMark }), { fileName: name });
}

/** A compact view of a parsed test: identity and attempt statuses. */
export function shape(test: ParsedTestCase): string {
  const id = [test.file ?? '-', test.classname, test.parent, test.name].join(' | ');
  return `${id} => ${test.attempts.map((a) => `${a.status}(${a.origin})`).join(' ')}`;
}

export function byName(file: ParsedJunitFile, name: string, parent?: string): ParsedTestCase {
  const test = file.testCases.find((t) => t.name === name && (parent === undefined || t.parent === parent));
  if (test === undefined) throw new Error(`no test ${name} in ${file.fileName}`);
  return test;
}
