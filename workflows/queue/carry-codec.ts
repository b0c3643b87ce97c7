/**
 * The carry codec: how the queue's state crosses continue-as-new (queue-workflow.ts). Two rules:
 *
 * - Only what the next run needs is carried (`forCarrying`): a finished run keeps what its queries
 *   and its PRs' records name (its PRs, commits, outcome, detail) but not its CI status reports,
 *   which only judged it while it ran. A run in progress keeps its reports: its verdict needs them.
 * - The state is carried compressed (`encodeCarried`): its commits and uuids, the bulk of it and
 *   random, are packed as bytes (4 bits a hex digit); the JSON around them, every character outside
 *   printable ASCII written as a JSON `\u` escape, is LZW-coded (codes as wide as the dictionary
 *   needs, at most 18 bits), both in base64. A queue's state repeats itself (the same keys, states
 *   and reasons for every PR), so 1,000 queued PRs carry about 230 KiB instead of 900.
 *
 * Invariants: pure and deterministic (workflow code); `decodeCarried(encodeCarried(c))` equals the JSON
 * round trip of `forCarrying(c)`. The encoder decodes what it wrote and compares before it answers: if
 * they ever differed, the state would be carried as plain JSON (never a state the next run misreads).
 * Plain carried state (from before the codec, or that fallback) decodes as itself.
 */
import type { Carried, RunMeta } from './carried';

const FINISHED: ReadonlySet<RunMeta['status']> = new Set(['succeeded', 'failed', 'cancelled']);

/** What the next run needs of the state: finished runs' status reports are left behind. */
export function forCarrying(c: Carried): Carried {
  return { ...c, runs: c.runs.map((r) => (FINISHED.has(r.status) ? { ...r, statuses: [] } : r)) };
}

/** The compressed form of a carried state. */
export interface EncodedCarried {
  codec: 'lzw-ids-1';
  /** The commits and ids taken out of the JSON (IDS), packed: 20 or 16 bytes each, in base64. */
  ids: string;
  /** The JSON without them, LZW-coded. */
  data: string;
}

const MAX_CODE_BITS = 18;
const MAX_CODES = 2 ** MAX_CODE_BITS;
const ASCII = 128;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Map([...BASE64].map((ch, i) => [ch, i]));

/**
 * Commits (40 hex digits) and uuids are a queue state's bulk and do not compress: they are taken out of
 * the JSON and packed as bytes. In the JSON a string that starts with MARK is a reference to the next
 * one (`MARK s` a commit, `MARK u` a uuid); a string of the state that starts with MARK itself is
 * written `MARK e` + the string.
 */
const MARK = '\u0001';
const SHA = /^[0-9a-f]{40}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Bits written six at a time as base64. */
class BitWriter {
  private readonly out: string[] = [];
  private acc = 0;
  private bits = 0;
  write(value: number, width: number): void {
    for (let b = width - 1; b >= 0; b--) {
      this.acc = (this.acc << 1) | ((value >> b) & 1);
      if (++this.bits === 6) {
        this.out.push(BASE64[this.acc]!);
        this.acc = 0;
        this.bits = 0;
      }
    }
  }
  finish(): string {
    if (this.bits > 0) this.write(0, 6 - this.bits);
    return this.out.join('');
  }
}

class BitReader {
  private pos = 0;
  private acc = 0;
  private bits = 0;
  constructor(private readonly data: string) {}
  /** The next `width` bits; null when fewer are left. */
  read(width: number): number | null {
    let value = 0;
    for (let i = 0; i < width; i++) {
      if (this.bits === 0) {
        if (this.pos >= this.data.length) return null;
        const v = BASE64_VALUE.get(this.data[this.pos++]!);
        if (v === undefined) throw new Error('carried state: the encoded data is not base64');
        this.acc = v;
        this.bits = 6;
      }
      this.bits--;
      value = value * 2 + ((this.acc >> this.bits) & 1);
    }
    return value;
  }
}

/** The width of the k-th code: it is below ASCII + k (the phrases either side knows by then). */
const widthOf = (k: number) => Math.min(MAX_CODE_BITS, Math.ceil(Math.log2(ASCII + k + 1)));

function lzwEncode(text: string): string {
  // A phrase is its code; a phrase plus a character is found by `code * ASCII + character`.
  const next = new Map<number, number>();
  let size = ASCII;
  let k = 0;
  const out = new BitWriter();
  out.write(text.length, 32);
  let w = text.charCodeAt(0);
  for (let i = 1; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    const found = next.get(w * ASCII + ch);
    if (found !== undefined) {
      w = found;
      continue;
    }
    out.write(w, widthOf(k++));
    if (size < MAX_CODES) next.set(w * ASCII + ch, size++);
    w = ch;
  }
  if (text.length > 0) out.write(w, widthOf(k));
  return out.finish();
}

function lzwDecode(data: string): string {
  const input = new BitReader(data);
  const length = input.read(32);
  if (length === null) throw new Error('carried state: the encoded data is empty');
  const phrases: string[] = Array.from({ length: ASCII }, (_, i) => String.fromCharCode(i));
  const out: string[] = [];
  let produced = 0;
  let prev: string | null = null;
  for (let k = 0; produced < length; k++) {
    const code = input.read(widthOf(k));
    if (code === null) throw new Error('carried state: the encoded data ends early');
    let phrase: string;
    if (code < phrases.length) phrase = phrases[code]!;
    else if (code === phrases.length && prev !== null) phrase = prev + prev[0]!;
    else throw new Error(`carried state: code ${code} is not defined yet`);
    out.push(phrase);
    produced += phrase.length;
    if (prev !== null && phrases.length < MAX_CODES) phrases.push(prev + phrase[0]!);
    prev = phrase;
  }
  return out.join('');
}

/** The state with its commits and uuids replaced by references, and those packed as bits. */
function takeIds(value: unknown): { rest: unknown; ids: string } {
  const out = new BitWriter();
  const hex = (h: string) => {
    for (const ch of h) out.write(parseInt(ch, 16), 4);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (SHA.test(v)) {
        hex(v);
        return `${MARK}s`;
      }
      if (UUID.test(v)) {
        hex(v.replaceAll('-', ''));
        return `${MARK}u`;
      }
      return v.startsWith(MARK) ? `${MARK}e${v}` : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([key, x]) => [key, walk(x)]));
    return v;
  };
  const rest = walk(value);
  return { rest, ids: out.finish() };
}

function putIds(value: unknown, ids: string): unknown {
  const input = new BitReader(ids);
  const hex = (digits: number) => {
    let h = '';
    for (let i = 0; i < digits; i++) {
      const d = input.read(4);
      if (d === null) throw new Error('carried state: fewer ids than references');
      h += d.toString(16);
    }
    return h;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && v.startsWith(MARK)) {
      const kind = v[MARK.length];
      if (kind === 's') return hex(40);
      if (kind === 'u') {
        const h = hex(32);
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      }
      return v.slice(MARK.length + 1);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([key, x]) => [key, walk(x)]));
    return v;
  };
  return walk(value);
}

/** JSON with only ASCII characters: JSON.parse reads the escapes back as the same string. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The state to hand to continue-as-new: compressed, or plain should the compression not round-trip. */
export function encodeCarried(c: Carried): EncodedCarried | Carried {
  const carried = forCarrying(c);
  const json = JSON.stringify(carried);
  const { rest, ids } = takeIds(JSON.parse(json));
  const encoded: EncodedCarried = { codec: 'lzw-ids-1', ids, data: lzwEncode(asciiJson(rest)) };
  return JSON.stringify(decodeCarried(encoded)) === json ? encoded : (JSON.parse(json) as Carried);
}

/** The state a run was started with: compressed or plain. */
export function decodeCarried(input: EncodedCarried | Carried): Carried {
  if ('codec' in input && input.codec === 'lzw-ids-1')
    return putIds(JSON.parse(lzwDecode(input.data)), input.ids) as Carried;
  return input as Carried;
}
