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

/**
 * The bytes a string takes in the carried state before compression: JSON, with every character
 * outside printable ASCII written as a `\u` escape (as `encodeCarried` writes it), so 6 bytes a UTF-16
 * unit outside ASCII (12 for an emoji), 2 for a quote, a backslash and the control characters JSON
 * shortens. The queue's budgets count in it (commit-budget.ts, payload-fit.ts).
 */
export function carriedBytes(value: string): number {
  let bytes = 2;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c >= 0x20 && c < 0x7f) bytes += 1;
    else if (c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) bytes += 2;
    else bytes += 6;
  }
  return bytes;
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

/**
 * Commits (40 hex digits) and uuids are a queue state's bulk and do not compress: they are taken out of
 * the JSON and packed as bytes. In the JSON a string that starts with MARK is a reference to the next
 * one (`MARK s` a commit, `MARK u` a uuid); a string of the state that starts with MARK itself is
 * written `MARK e` + the string.
 */
const MARK = '\u0001';
const SHA = /^[0-9a-f]{40}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** ASCII character codes as a string, in chunks (an argument list has a length limit). */
function asciiString(codes: Uint8Array, length: number): string {
  const parts: string[] = [];
  for (let i = 0; i < length; i += 8192)
    parts.push(
      String.fromCharCode.apply(null, codes.subarray(i, Math.min(length, i + 8192)) as unknown as number[]),
    );
  return parts.join('');
}

const BASE64_CODES = Uint8Array.from([...BASE64].map((ch) => ch.charCodeAt(0)));
/** A base64 character's value by its character code; -1 for any other character. */
const BASE64_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  BASE64_CODES.forEach((code, i) => (values[code] = i));
  return values;
})();

/**
 * Bits written six at a time as base64, most significant first. Whole values at once (not a bit at a
 * time): continue-as-new waits for the encoder, and the longer its task, the likelier an event arrives
 * meanwhile and Temporal refuses it (UNHANDLED_COMMAND: the worker then replays the whole run).
 */
class BitWriter {
  private out = new Uint8Array(1024);
  private length = 0;
  private acc = 0;
  private bits = 0;
  /** The low `width` bits of `value` (width up to 32). */
  write(value: number, width: number): void {
    if (width > 24) {
      this.write(Math.floor(value / 65536) % 2 ** (width - 16), width - 16);
      this.write(value % 65536, 16);
      return;
    }
    // Fewer than 6 bits are held, so 6 + 24 fit a 31-bit integer.
    this.acc = (this.acc << width) | (value & ((1 << width) - 1));
    this.bits += width;
    while (this.bits >= 6) {
      this.bits -= 6;
      if (this.length === this.out.length) {
        const grown = new Uint8Array(this.out.length * 2);
        grown.set(this.out);
        this.out = grown;
      }
      this.out[this.length++] = BASE64_CODES[(this.acc >> this.bits) & 63]!;
    }
    this.acc &= (1 << this.bits) - 1;
  }
  finish(): string {
    if (this.bits > 0) this.write(0, 6 - this.bits);
    return asciiString(this.out, this.length);
  }
}

class BitReader {
  private pos = 0;
  private acc = 0;
  private bits = 0;
  constructor(private readonly data: string) {}
  /** The next `width` bits (up to 32); null when fewer are left. */
  read(width: number): number | null {
    if (width > 24) {
      const high = this.read(width - 16);
      const low = high === null ? null : this.read(16);
      return high === null || low === null ? null : high * 65536 + low;
    }
    while (this.bits < width) {
      if (this.pos >= this.data.length) return null;
      const code = this.data.charCodeAt(this.pos++);
      const v = code < 128 ? BASE64_VALUES[code]! : -1;
      if (v < 0) throw new Error('carried state: the encoded data is not base64');
      this.acc = (this.acc << 6) | v;
      this.bits += 6;
    }
    this.bits -= width;
    const value = (this.acc >> this.bits) & ((1 << width) - 1);
    this.acc &= (1 << this.bits) - 1;
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

/** The longest text a carried state decodes to (a corrupt length must not allocate gigabytes). */
const MAX_DECODED = 256 * 1024 * 1024;

function lzwDecode(data: string): string {
  const input = new BitReader(data);
  const length = input.read(32);
  if (length === null) throw new Error('carried state: the encoded data is empty');
  if (length > MAX_DECODED) throw new Error('carried state: the encoded length is implausible');
  // A phrase is its last character and the phrase before it (its prefix): no string per phrase.
  const prefix = new Int32Array(MAX_CODES);
  const last = new Uint8Array(MAX_CODES);
  const first = new Uint8Array(MAX_CODES);
  const size = new Int32Array(MAX_CODES);
  for (let i = 0; i < ASCII; i++) {
    prefix[i] = -1;
    last[i] = i;
    first[i] = i;
    size[i] = 1;
  }
  let codes = ASCII;
  const out = new Uint8Array(length);
  let produced = 0;
  let prev = -1;
  for (let k = 0; produced < length; k++) {
    const code = input.read(widthOf(k));
    if (code === null) throw new Error('carried state: the encoded data ends early');
    // The phrase one past the dictionary is the previous one plus its own first character.
    const fresh = code === codes && prev !== -1;
    if (code > codes || (code === codes && !fresh))
      throw new Error(`carried state: code ${code} is not defined yet`);
    const start = fresh ? first[prev]! : first[code]!;
    if (prev !== -1 && codes < MAX_CODES) {
      prefix[codes] = prev;
      last[codes] = start;
      first[codes] = first[prev]!;
      size[codes] = size[prev]! + 1;
      codes += 1;
    }
    const n = size[code]!;
    if (produced + n > length) throw new Error('carried state: the encoded data is longer than it says');
    // Written from its last character back along the prefixes.
    for (let c = code, at = produced + n - 1; c !== -1; c = prefix[c]!, at--) out[at] = last[c]!;
    produced += n;
    prev = code;
  }
  return asciiString(out, length);
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
