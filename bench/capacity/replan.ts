/**
 * `npx tsx bench/capacity/replan.ts <run.json>`: prints a capacity run's tables again from its JSON
 * (after a change to the arithmetic of plan.ts, or to read an earlier run), without starting a stack.
 */
import fs from 'node:fs';
import { formatReport, type CapacityReport } from './report';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx bench/capacity/replan.ts <file written by npm run bench:capacity -- --json>');
  process.exit(2);
}
console.log(formatReport(JSON.parse(fs.readFileSync(file, 'utf8')) as CapacityReport));
