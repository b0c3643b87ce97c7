/**
 * Lints planted files with the project's own eslint.config.mjs and prints, for each, the walls it
 * broke (the `[name]` that starts each railyard/walls message). Run by test/unit/lint/walls.test.ts
 * as a child process (ESLint's config is an ES module, which jest's CommonJS sandbox cannot load).
 *
 * Input on stdin: [{ "file": "executor/x.ts", "code": "..." }, ...], files relative to the project
 * root, not written to disk. Only railyard/walls runs, without type information: the walls read
 * import statements alone, and the type-aware rules need files the TypeScript project knows.
 */
import { ESLint } from 'eslint';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const planted = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [{ languageOptions: { parserOptions: { projectService: false } } }],
  ruleFilter: ({ ruleId }) => ruleId === 'railyard/walls',
});
const out = [];
for (const { file, code } of planted) {
  const [result] = await eslint.lintText(code, { filePath: file });
  out.push({
    file,
    walls: result.messages.map((m) =>
      m.ruleId === 'railyard/walls' ? /^\[([^\]]+)\]/.exec(m.message)?.[1] : m.message,
    ),
  });
}
process.stdout.write(JSON.stringify(out));
