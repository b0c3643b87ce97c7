/**
 * pytest (`--junitxml`). xunit1/legacy writes `file` and `line`; xunit2 (the default since pytest 6)
 * does not, but its `classname` is the test's path with `/` turned into `.` and `.py` dropped, plus
 * any class names (`tests.test_shop.TestCart`). The file is recovered from the last segment that
 * follows pytest's default module pattern (`test_*.py` or `*_test.py`); when none does, no file is
 * guessed rather than a wrong one.
 *
 * pytest-rerunfailures (16.6.1 and later) writes each rerun as its own testcase with no child
 * elements, so those empty earlier repeats are failed attempts, not passes.
 */
import { type RawCase } from '../raw';
import { identifyGeneric } from './generic';
import { type CaseIdentity, type DialectRules } from './types';

export const pytestRules: DialectRules = {
  dialect: 'pytest',
  emptyRepeatsAreFailedReruns: true,
  identify(raw: RawCase): CaseIdentity {
    const identity = identifyGeneric(raw);
    if (identity.file !== undefined) return identity;
    const file = pytestFileFromClassname(identity.classname);
    return file === undefined ? identity : { ...identity, file };
  },
};

export function pytestFileFromClassname(classname: string): string | undefined {
  const segments = classname.split('.');
  let moduleEnd = -1;
  segments.forEach((segment, index) => {
    if (/^test_\w*$|^\w*_test$/.test(segment)) moduleEnd = index;
  });
  if (moduleEnd === -1) return undefined;
  return `${segments.slice(0, moduleEnd + 1).join('/')}.py`;
}
