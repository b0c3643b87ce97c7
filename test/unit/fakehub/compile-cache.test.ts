/**
 * Contract validators reused as code across the test files of a run (compile-cache.ts): the second
 * Ajv instance (another test file) gets the validator from the run's folder, and it judges exactly as
 * a freshly compiled one, the same errors with the same schema details included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv, { _ } from 'ajv';
import { addContractFormats } from '../../support/fakehub/contract/ajv-formats';
import { compileCached } from '../../support/fakehub/contract/compile-cache';

const SCHEMA = {
  type: 'object',
  required: ['id', 'login', 'created_at', 'head_repo'],
  properties: {
    id: { type: 'integer', format: 'int64' },
    login: { type: 'string', minLength: 1 },
    created_at: { type: 'string', format: 'date-time' },
    head_repo: { type: 'string', format: 'repo.nwo' },
    site: { $comment: 'openapi nullable', anyOf: [{ type: 'null' }, { type: 'string', format: 'uri' }] },
  },
};

const newAjv = () => {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateFormats: true,
    verbose: true,
    code: {
      source: true,
      formats: _`require(${require.resolve('../../support/fakehub/contract/ajv-formats')}).formats`,
    },
  });
  addContractFormats(ajv);
  return ajv;
};

const GOOD = { id: 1, login: 'ada', created_at: '2026-01-01T00:00:00Z', head_repo: 'acme/app', site: null };
const BAD = { id: 1.5, login: '', created_at: 'yesterday', head_repo: 'acme', site: 'not a uri' };

describe('compiled validators shared through the run folder', () => {
  let tmp: string;
  const before = process.env.TEST_TMP;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ajv-cache-test-'));
    process.env.TEST_TMP = tmp;
  });
  afterEach(() => {
    process.env.TEST_TMP = before;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the second instance loads the first one’s code and judges the same, errors and schemas alike', () => {
    const fresh = compileCached(newAjv(), SCHEMA, 'test');
    const files = fs.readdirSync(path.join(tmp, 'ajv-cache'));
    expect(files).toHaveLength(1);
    const second = newAjv();
    const compile = jest.spyOn(second, 'compile');
    const cached = compileCached(second, SCHEMA, 'test');
    expect(compile).not.toHaveBeenCalled(); // from the file, not compiled again
    expect(cached).not.toBe(fresh);
    expect([fresh(GOOD), cached(GOOD)]).toEqual([true, true]);
    expect([fresh(BAD), cached(BAD)]).toEqual([false, false]);
    expect(cached.errors).toEqual(fresh.errors);
    expect(cached.errors!.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/id', '/login', '/created_at', '/head_repo', '/site']),
    );
    expect(cached.errors!.some((e) => (e.parentSchema as { $comment?: string })?.$comment)).toBe(true);
  });

  it('another flavour of options does not share an entry; without TEST_TMP nothing is written', () => {
    compileCached(newAjv(), SCHEMA, 'one');
    compileCached(newAjv(), SCHEMA, 'two');
    expect(fs.readdirSync(path.join(tmp, 'ajv-cache'))).toHaveLength(2);
    delete process.env.TEST_TMP;
    const fn = compileCached(newAjv(), { type: 'string' }, 'one');
    expect([fn('x'), fn(1)]).toEqual([true, false]);
    expect(fs.readdirSync(path.join(tmp, 'ajv-cache'))).toHaveLength(2);
  });
});
