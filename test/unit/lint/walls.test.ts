/**
 * The lint walls (scripts/lint/walls.mjs, docs/adr/0013-rooms.md) fail on a planted violation of
 * each, and let the allowed imports beside it through. The planted files are linted in memory with
 * the project's own eslint.config.mjs (test/support/lint-planted.mjs), so this also shows the rule is
 * switched on for the files it guards.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Planted {
  file: string;
  code: string;
  /** The walls it must break, in order; [] for an allowed import (the control beside a violation). */
  breaks: string[];
}

const CASES: Planted[] = [
  // The engine is pure.
  {
    file: 'engine/planted.ts',
    code: "import fs from 'node:fs';\nexport const a = fs;\n",
    breaks: ['engine'],
  },
  {
    file: 'engine/planted.ts',
    code: "import { decide } from './decide';\nexport const a = decide;\n",
    breaks: [],
  },
  // The contract: its own files, engine types, Temporal's define* helpers.
  {
    file: 'contract/planted.ts',
    code: "import { decide } from '../engine';\nexport const a = decide;\n",
    breaks: ['contract'],
  },
  {
    file: 'contract/planted.ts',
    code: "import type { PrState } from '../engine';\nexport type A = PrState;\n",
    breaks: [],
  },
  {
    file: 'contract/planted.ts',
    code: "import { Pool } from '../stores/db';\nexport const a = Pool;\n",
    breaks: ['contract', 'floors'],
  },
  // Workflow code: deterministic, activity code by type only, engine and contract through their index.
  {
    file: 'workflows/queue/planted.ts',
    code: "import { setTimeout } from 'node:timers/promises';\nexport const a = setTimeout;\n",
    breaks: ['workflow sandbox'],
  },
  {
    file: 'workflows/queue/planted.ts',
    code: "import { createActivities } from '../../activities';\nexport const a = createActivities;\n",
    breaks: ['workflow sandbox'],
  },
  {
    file: 'workflows/queue/planted.ts',
    code: "import type { Activities } from '../../activities';\nexport type A = Activities;\n",
    breaks: [],
  },
  {
    file: 'workflows/queue/planted.ts',
    code: "import { decide } from '../../engine/decide';\nexport const a = decide;\n",
    breaks: ['workflows apart'],
  },
  // Outside the workflows: the engine index only, no workflow code.
  {
    file: 'api/planted.ts',
    code: "import { decide } from '../engine/decide';\nexport const a = decide;\n",
    breaks: ['engine index'],
  },
  {
    file: 'api/planted.ts',
    code: "import * as q from '../workflows/queue/queue-workflow';\nexport const a = q;\n",
    breaks: ['engine index'],
  },
  // The classifier is pure.
  {
    file: 'flaky/classification/planted.ts',
    code: "import { inTransaction } from '../store/db';\nexport const a = inTransaction;\n",
    breaks: ['classifier'],
  },
  // platform/ imports no other room.
  {
    file: 'platform/planted.ts',
    code: "import { createPool } from '../stores/db';\nexport const a = createPool;\n",
    breaks: ['platform', 'floors'],
  },
  // The executor: no pg, store, GitHub, API or control-plane code; the git port by type only.
  {
    file: 'executor/planted.ts',
    code: "import { createApiKeyStore } from '../stores/api-keys';\nexport const a = createApiKeyStore;\n",
    breaks: ['executor'],
  },
  {
    file: 'executor/planted.ts',
    code: "import { gitHubConfigShape } from '../github/app/config';\nexport const a = gitHubConfigShape;\n",
    breaks: ['executor', 'floors'],
  },
  {
    file: 'executor/planted.ts',
    code: "import { createLocalGitHost } from '../git';\nexport const a = createLocalGitHost;\n",
    breaks: ['executor git'],
  },
  {
    file: 'executor/planted.ts',
    code: "import type { GitHost } from '../git/git-host';\nexport type A = GitHost;\n",
    breaks: [],
  },
  {
    file: 'worker/executor-planted.ts',
    code: "import { notFound } from '../api/errors';\nexport const a = notFound;\n",
    breaks: ['executor'],
  },
  // Only stores import pg.
  {
    file: 'flaky/planted.ts',
    code: "import { Pool } from 'pg';\nexport const a = Pool;\n",
    breaks: ['pg in stores'],
  },
  {
    file: 'flaky/store/planted.ts',
    code: "import { Pool } from 'pg';\nexport const a = Pool;\n",
    breaks: [],
  },
  // SQL runs only in stores; Temporal's handle.query(definition) is not SQL.
  {
    file: 'flaky/ingest/planted.ts',
    code: "import type { Pool } from '../../stores/db';\nexport const a = (p: Pool) => p.query('SELECT 1');\n",
    breaks: ['sql in stores'],
  },
  {
    file: 'api/planted.ts',
    code: 'export const a = (p: { query(q: unknown): void }, def: unknown) => p.query(def);\n',
    breaks: [],
  },
  {
    file: 'flaky/store/planted.ts',
    code: "import type { Pool } from 'pg';\nexport const a = (p: Pool) => p.query('SELECT 1');\n",
    breaks: [],
  },
  // Routes reach data through stores and services, not pg or Temporal.
  {
    file: 'api/routes/merge-queue/planted.ts',
    code: "import { Client } from '@temporalio/client';\nexport const a = Client;\n",
    breaks: ['routes'],
  },
  // Floors: no room imports a room above it.
  {
    file: 'stores/planted.ts',
    code: "import { createFlakyStore } from '../flaky/service';\nexport const a = createFlakyStore;\n",
    breaks: ['floors'],
  },
  {
    file: 'git/planted.ts',
    code: "import { createActivities } from '../activities';\nexport const a = createActivities;\n",
    breaks: ['floors'],
  },
  // The queue client serves the API and the GitHub handlers, so it imports neither.
  {
    file: 'queue-client/planted.ts',
    code: "import { unavailable } from '../api/errors';\nexport const a = unavailable;\n",
    breaks: ['floors'],
  },
  {
    file: 'queue-client/planted.ts',
    code: "import { quoted } from '../github/inbound/pr-commands';\nexport const a = quoted;\n",
    breaks: ['floors'],
  },
  {
    file: 'queue-client/planted.ts',
    code: "import { queueWorkflowId } from '../contract';\nexport const a = queueWorkflowId;\n",
    breaks: [],
  },
];

describe('the lint walls', () => {
  let results: { file: string; walls: string[] }[];
  beforeAll(() => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'test', 'support', 'lint-planted.mjs')], {
      cwd: ROOT,
      input: JSON.stringify(CASES.map(({ file, code }) => ({ file, code }))),
      encoding: 'utf8',
    });
    results = JSON.parse(out);
  }, 60_000);

  test.each(CASES.map((c, i) => [`${c.file}: ${c.code.split('\n')[0]}`, i] as const))('%s', (_name, i) => {
    expect(results[i]!.file).toBe(CASES[i]!.file);
    expect(results[i]!.walls).toEqual(CASES[i]!.breaks);
  });

  test('every wall and the floors are planted at least once', async () => {
    const { WALLS } = (await import(path.join(ROOT, 'scripts', 'lint', 'walls.mjs'))) as {
      WALLS: { name: string }[];
    };
    const planted = new Set(CASES.flatMap((c) => c.breaks));
    expect([...WALLS.map((w) => w.name), 'floors', 'sql in stores'].filter((n) => !planted.has(n))).toEqual(
      [],
    );
  });
});
