/**
 * The walls between railyard's rooms (docs/adr/0013-rooms.md), as one ESLint rule, `railyard/walls`.
 *
 * Each import (static, `export ... from`, dynamic `import()`, `require()`) is resolved to the project
 * path it names, or kept as the package name, and held against every wall whose `files` match the
 * importing file. A wall says what its files may not import (`forbid`) or all they may import
 * (`only`); `typesFrom` lets type-only imports through where a room may name another's types but
 * never load its code. Two checks are not about imports:
 * - floors: a room imports only rooms on its own floor or below (FLOORS), so there is no upward import
 *   and no circle between rooms;
 * - SQL: a `.query()` call whose first argument is SQL text (a string, a template, a `{ text }` object)
 *   runs only in a store (`stores/`, or a `store/` folder of a room). Temporal's `handle.query(def)`
 *   passes a definition, not text, and is not SQL.
 *
 * The same module is imported by eslint.config.mjs and by test/unit/lint/walls.test.ts, which plants a
 * violation of every wall and checks that lint fails on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * The rooms, bottom floor first. A room may import its own files and rooms on lower floors (or on its
 * own floor when named on the same line: none are, so the floors are a strict order). Rooms not listed
 * (scripts, bench, test) stand above all of them.
 */
export const FLOORS = [
  ['engine'],
  ['contract'],
  ['platform'],
  ['stores'],
  ['git'],
  ['executor'],
  ['test-runs'],
  ['events'],
  ['webhooks'],
  ['flaky'],
  ['queue-client'],
  ['github'],
  ['activities'],
  ['workflows'],
  ['api'],
  ['worker'],
];

const floorOf = new Map(FLOORS.flatMap((rooms, i) => rooms.map((r) => [r, i])));

/** A store: where SQL runs and `pg` is imported. */
export const isStore = (file) => /^stores\//.test(file) || /(^|\/)store\//.test(file);

/** A project module in one of these folders (or the folder's index). */
const inRoom =
  (...dirs) =>
  (t) =>
    t.project && dirs.some((d) => t.path === d || t.path.startsWith(`${d}/`));
/** A package of these names ('@octokit/*' is a scope). */
const pkg =
  (...names) =>
  (t) =>
    !t.project && names.some((n) => t.path === n || (n.endsWith('/*') && t.path.startsWith(n.slice(0, -1))));
const builtin = (t) => !t.project && NODE_BUILTINS.has(t.path);
/** For the importing file, a plain path. */
const fileIn =
  (...dirs) =>
  (f) =>
    dirs.some((d) => f.startsWith(`${d}/`));

/**
 * Each wall: `files(importer path)`, then `forbid(target)` or `only(target)`; `typesFrom(target)` lets
 * a type-only import through. A target is `{ project, path }` (targetOf).
 */
export const WALLS = [
  {
    name: 'engine',
    files: fileIn('engine'),
    only: inRoom('engine'),
    message: 'The engine is pure: it imports only its own files (no Node builtins, no packages).',
  },
  {
    name: 'contract',
    files: fileIn('contract'),
    only: (t) => inRoom('contract')(t) || pkg('@temporalio/workflow', '@temporalio/common')(t),
    typesFrom: (t) => t.project && t.path === 'engine/index',
    message:
      "The contract imports only its own files, the engine index (types only) and Temporal's define* helpers.",
  },
  {
    name: 'workflow sandbox',
    files: fileIn('workflows'),
    forbid: (t) =>
      builtin(t) ||
      pkg(
        'pg',
        'fastify',
        'prom-client',
        '@temporalio/client',
        '@temporalio/worker',
        '@temporalio/activity',
      )(t) ||
      (t.project && !inRoom('workflows', 'contract', 'engine')(t)),
    // Types are erased: a workflow may name an activity's or a domain's types, never load its code.
    typesFrom: (t) => t.project,
    message:
      'Workflow code is deterministic: no Node builtins or I/O packages; it loads workflows, the contract and the engine, and names other code by type only.',
  },
  {
    name: 'workflows apart',
    files: fileIn('workflows'),
    forbid: (t) =>
      (inRoom('engine')(t) && t.path !== 'engine/index') ||
      (inRoom('contract')(t) && t.path !== 'contract/index'),
    message: 'A workflow reaches the engine and the contract through their index files.',
  },
  {
    name: 'engine index',
    files: (f) => !fileIn('engine', 'workflows', 'contract', 'test')(f),
    forbid: (t) => inRoom('workflows')(t) || (inRoom('engine')(t) && t.path !== 'engine/index'),
    message: 'Outside workflows/, import the engine through its index and no workflow code (ADR 0007).',
  },
  {
    name: 'classifier',
    files: fileIn('flaky/classification'),
    only: inRoom('flaky/classification'),
    message: 'The classifier is pure (no Node builtins, no I/O): it imports only its own files.',
  },
  {
    name: 'platform',
    files: fileIn('platform'),
    forbid: (t) => t.project && !inRoom('platform')(t),
    message: 'platform/ is a ground floor: it imports no other room.',
  },
  {
    name: 'executor',
    files: (f) =>
      fileIn('executor')(f) || /^worker\/(executor[^/]*|sandbox-settings|sandbox-network-allow)\.ts$/.test(f),
    forbid: (t) =>
      pkg('pg', '@octokit/*', 'svix')(t) ||
      (t.project &&
        !inRoom('executor', 'contract', 'engine', 'platform', 'git')(t) &&
        !/^worker\/(executor[^/]*|sandbox-settings|sandbox-network-allow|sdk-log-level)$/.test(t.path)),
    // The git port's types (what a checkout is); the git hosts' code stays out of the executor.
    typesFrom: inRoom('git'),
    message:
      'The executor runs untrusted code and holds no credential (ADR 0012): it imports no pg, store, GitHub, API or control-plane code.',
  },
  {
    name: 'executor git',
    files: (f) =>
      fileIn('executor')(f) || /^worker\/(executor[^/]*|sandbox-settings|sandbox-network-allow)\.ts$/.test(f),
    forbid: inRoom('git'),
    typesFrom: inRoom('git'),
    message: 'The executor names the git port by type only; git hosts run on the control plane.',
  },
  {
    name: 'pg in stores',
    files: (f) => !isStore(f) && !fileIn('test', 'scripts', 'bench')(f),
    forbid: pkg('pg'),
    message: 'Only stores import pg; elsewhere take the pool type from stores/db.',
  },
  {
    name: 'routes',
    files: fileIn('api/routes', 'api/dashboard/routes'),
    forbid: pkg('pg', '@temporalio/client'),
    message:
      'Routes reach data through stores and services (the queue client), never pg or Temporal directly.',
  },
];

/**
 * What an import names: a project module as its path from the root without extension, with
 * '<folder>/index' where a folder is meant ('engine' -> 'engine/index'), or a package as its name.
 * `project` tells them apart ('node:fs' and 'zod' are packages).
 */
function targetOf(file, spec) {
  if (!spec.startsWith('.')) return { project: false, path: spec };
  const abs = path.resolve(path.dirname(file), spec);
  let rel = path.relative(ROOT, abs).split(path.sep).join('/');
  rel = rel.replace(/\.(ts|js|mjs|cjs)$/, '');
  if (!fs.existsSync(path.join(ROOT, `${rel}.ts`)) && fs.existsSync(path.join(ROOT, rel, 'index.ts')))
    rel = `${rel}/index`;
  return { project: true, path: rel };
}

function isTypeOnly(node) {
  if (node.type === 'ImportDeclaration') {
    if (node.importKind === 'type') return true;
    return node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type');
  }
  if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') {
    if (node.exportKind === 'type') return true;
    return (
      node.type === 'ExportNamedDeclaration' &&
      node.specifiers.length > 0 &&
      node.specifiers.every((s) => s.exportKind === 'type')
    );
  }
  return false;
}

function roomOf(p) {
  return p.split('/')[0];
}

const SQL_TEXT = new Set(['Literal', 'TemplateLiteral', 'TaggedTemplateExpression']);

export const wallsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'The walls between railyard’s rooms (docs/adr/0013-rooms.md).' },
    schema: [],
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    const walls = WALLS.filter((w) => w.files(file));
    const myFloor = floorOf.get(roomOf(file));
    const check = (node, spec, typeOnly) => {
      if (typeof spec !== 'string') return;
      const t = targetOf(context.filename, spec);
      const target = t.path;
      for (const w of walls) {
        const bad = w.only ? !w.only(t) : w.forbid(t);
        if (!bad) continue;
        if (typeOnly && w.typesFrom?.(t)) continue;
        context.report({ node, message: `[${w.name}] ${w.message} (imports ${target})` });
      }
      if (myFloor !== undefined && t.project) {
        const theirs = floorOf.get(roomOf(target));
        if (theirs !== undefined && theirs > myFloor)
          context.report({
            node,
            message: `[floors] ${roomOf(file)}/ stands below ${roomOf(target)}/ and may not import it (imports ${target}); see FLOORS in scripts/lint/walls.mjs.`,
          });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value, isTypeOnly(n)),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value, isTypeOnly(n)),
      ExportAllDeclaration: (n) => check(n, n.source.value, isTypeOnly(n)),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value, false),
      TSImportEqualsDeclaration: (n) =>
        n.moduleReference.type === 'TSExternalModuleReference' &&
        check(n, n.moduleReference.expression.value, false),
      CallExpression: (n) => {
        if (
          n.callee.type === 'Identifier' &&
          n.callee.name === 'require' &&
          n.arguments[0]?.type === 'Literal'
        ) {
          check(n, n.arguments[0].value, false);
          return;
        }
        if (
          !isStore(file) &&
          !fileIn('test', 'scripts', 'bench')(file) &&
          n.callee.type === 'MemberExpression' &&
          n.callee.property.type === 'Identifier' &&
          n.callee.property.name === 'query' &&
          n.arguments.length > 0 &&
          (SQL_TEXT.has(n.arguments[0].type) ||
            (n.arguments[0].type === 'ObjectExpression' &&
              n.arguments[0].properties.some(
                (p) => p.type === 'Property' && p.key.type === 'Identifier' && p.key.name === 'text',
              )))
        ) {
          context.report({
            node: n,
            message: '[sql in stores] SQL runs only in a store (stores/ or a store/ folder of a room).',
          });
        }
      },
    };
  },
};

export const wallsPlugin = { rules: { walls: wallsRule } };
