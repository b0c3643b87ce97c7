/**
 * Turns the upload's byte chunks into text chunks for the XML parser, one chunk at a time, so an
 * HTTP body can be piped through without being buffered whole.
 *
 * The encoding is chosen once from the first bytes: a byte-order mark wins, then UTF-16 without a
 * mark, then the XML declaration's `encoding`, then UTF-8 (the XML default). Multi-byte characters
 * split across chunks are carried over by the streaming TextDecoder. Invalid bytes become U+FFFD
 * rather than refusing the file: captured test output is often not clean text.
 *
 * Also enforces the byte limit, counting bytes as they arrive.
 */
import { TextDecoder } from 'node:util';
import { JunitParseError } from './errors';

export type XmlChunk = Buffer | Uint8Array | string;

/** How many leading bytes are enough to see a BOM and the XML declaration. */
const SNIFF_BYTES = 1024;

export async function* decodeXmlChunks(
  source: AsyncIterable<XmlChunk> | Iterable<XmlChunk>,
  fileName: string,
  maxBytes: number,
): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  let head: Uint8Array[] = [];
  let headBytes = 0;
  let totalBytes = 0;
  let first = true;

  for await (const chunk of source) {
    totalBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (totalBytes > maxBytes)
      throw new JunitParseError(fileName, { kind: 'too_large', limitBytes: maxBytes });

    if (typeof chunk === 'string') {
      // Already text: only a leading BOM needs removing, the parser would call it text before the root.
      yield first ? chunk.replace(/^\uFEFF/, '') : chunk;
      first = false;
      continue;
    }
    first = false;
    if (decoder) {
      yield decoder.decode(chunk, { stream: true });
      continue;
    }
    head.push(chunk);
    headBytes += chunk.byteLength;
    if (headBytes < SNIFF_BYTES) continue;
    const bytes = Buffer.concat(head);
    head = [];
    decoder = chooseDecoder(bytes, fileName);
    yield decoder.decode(bytes, { stream: true });
  }

  if (!decoder && headBytes > 0) {
    const bytes = Buffer.concat(head);
    decoder = chooseDecoder(bytes, fileName);
    yield decoder.decode(bytes, { stream: true });
  }
  if (decoder) {
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  }
}

function chooseDecoder(head: Buffer, fileName: string): TextDecoder {
  const b0 = head[0];
  const b1 = head[1];
  if (b0 === 0xef && b1 === 0xbb && head[2] === 0xbf) return new TextDecoder('utf-8');
  if (b0 === 0xfe && b1 === 0xff) return new TextDecoder('utf-16be');
  if (b0 === 0xff && b1 === 0xfe) return new TextDecoder('utf-16le');
  if (b0 === 0x3c && b1 === 0x00) return new TextDecoder('utf-16le');
  if (b0 === 0x00 && b1 === 0x3c) return new TextDecoder('utf-16be');

  const declared = declaredEncoding(head);
  if (declared === undefined) return new TextDecoder('utf-8');
  try {
    const decoder = new TextDecoder(declared);
    // A declaration of UTF-16 on bytes that are not UTF-16 (no BOM, no NUL pattern above) is a lie
    // we cannot decode our way out of.
    if (decoder.encoding.startsWith('utf-16')) throw new RangeError(declared);
    return decoder;
  } catch {
    throw new JunitParseError(fileName, { kind: 'encoding', encoding: declared });
  }
}

function declaredEncoding(head: Buffer): string | undefined {
  const text = head.toString('latin1');
  if (!text.startsWith('<?xml')) return undefined;
  const end = text.indexOf('?>');
  const declaration = end === -1 ? text : text.slice(0, end);
  return /\sencoding\s*=\s*["']([^"']*)["']/.exec(declaration)?.[1];
}
