/**
 * The formats fakehub's contract checks know: ajv-formats' full set plus GitHub's own (`int64`,
 * `int32`, `repo.nwo`). One object, so a validator compiled to code (compile-cache.ts) refers to the
 * same definitions by name (`formats["date-time"]`) as the Ajv instance that compiled it.
 */
import type Ajv from 'ajv/dist/core';
import { fullFormats } from 'ajv-formats/dist/formats';

export const formats = {
  ...fullFormats,
  int64: { type: 'number' as const, validate: (n: number) => Number.isInteger(n) },
  int32: { type: 'number' as const, validate: (n: number) => Number.isInteger(n) },
  // GitHub's `owner/name` (POST /pulls `head_repo`).
  'repo.nwo': { type: 'string' as const, validate: (s: string) => /^[^/\s]+\/[^/\s]+$/.test(s) },
};

export function addContractFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
}
