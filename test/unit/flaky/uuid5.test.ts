/** The fast UUIDv5 gives exactly what the `uuid` package gives, so stored test ids never change. */
import fc from 'fast-check';
import { v5 as uuidv5 } from 'uuid';
import { TRUNK_TEST_ID_NAMESPACE } from '../../../flaky/identity';
import { namespaceBytes, uuidV5 } from '../../../flaky/uuid5';

test('equal to uuid.v5 for any well-formed string', () => {
  const namespace = namespaceBytes(TRUNK_TEST_ID_NAMESPACE);
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (name) => {
      expect(uuidV5(name, namespace)).toBe(uuidv5(name, TRUNK_TEST_ID_NAMESPACE));
    }),
    { numRuns: 2000 },
  );
  expect(uuidV5('', namespace)).toBe(uuidv5('', TRUNK_TEST_ID_NAMESPACE));
});

test('a namespace that is not a UUID is refused', () => {
  expect(() => namespaceBytes('nope')).toThrow('not a UUID');
});
