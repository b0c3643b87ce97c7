/**
 * The encoded rows (row-encoder.ts) that came with a parsed file from a parser thread, kept beside
 * the file object rather than in it: ParsedJunitFile stays the parser's plain result (equal to an
 * in-thread parse), and a file without rows is simply prepared the object way.
 *
 * A WeakMap: an entry lives exactly as long as its file object, so nothing here outlives an upload.
 */
import { type ParsedJunitFile } from '../junit';
import { type EncodedRows } from './row-encoder';

const rowsByFile = new WeakMap<ParsedJunitFile, EncodedRows>();

export function attachEncodedRows(file: ParsedJunitFile, rows: EncodedRows): void {
  rowsByFile.set(file, rows);
}

export function encodedRowsOf(file: ParsedJunitFile): EncodedRows | undefined {
  return rowsByFile.get(file);
}
