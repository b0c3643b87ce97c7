/**
 * zstd decompression of an uploaded bundle, as a stream, with fzstd (pure JavaScript: Node 20's zlib
 * has no zstd, and a native binding would not install from npm alone).
 *
 * The input is hostile, so two bounds hold before fzstd sees a byte:
 * - every frame header is read here first (createFrameGuard) and a frame whose window is larger than
 *   `maxWindowBytes` is refused: fzstd allocates the declared window up front (up to 2 GiB from a
 *   15-byte header) and moves it once per 128 KiB block, so the window bounds both memory and time;
 * - the decompressed bytes are counted as they come out, and past `maxUnpackedBytes` the stream is
 *   refused (a zstd bomb stops there, having produced at most one block more).
 * Frames that use a dictionary are refused (fzstd cannot decode them and the CLI never writes them).
 */
import { Decompress } from 'fzstd';
import { BundleRefusal, refuse } from './errors';

export interface ZstdLimits {
  readonly maxUnpackedBytes: number;
  readonly maxWindowBytes: number;
}

const ZSTD_MAGIC = 0xfd2fb528;
const isSkippableMagic = (magic: number) => magic >>> 4 === 0x184d2a5;

type GuardState =
  | { readonly at: 'magic' }
  | { readonly at: 'descriptor' }
  | { readonly at: 'header'; readonly descriptor: number; readonly need: number }
  | { readonly at: 'skippable_size' }
  | { readonly at: 'block'; readonly checksum: boolean };

/**
 * Follows the frame structure of a zstd stream (RFC 8878 §3.1) without decoding it: magic numbers,
 * frame headers, block headers and skippable frames. Throws a BundleRefusal at the first problem.
 */
export function createFrameGuard(maxWindowBytes: number) {
  let state: GuardState = { at: 'magic' };
  let held: number[] = [];
  let skip = 0;
  let frames = 0;

  const needOf = (s: GuardState): number => {
    switch (s.at) {
      case 'magic':
      case 'skippable_size':
        return 4;
      case 'descriptor':
        return 1;
      case 'header':
        return s.need;
      case 'block':
        return 3;
    }
  };

  function step(bytes: readonly number[]): void {
    switch (state.at) {
      case 'magic': {
        const magic = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
        if (magic === ZSTD_MAGIC) state = { at: 'descriptor' };
        else if (isSkippableMagic(magic)) state = { at: 'skippable_size' };
        else
          refuse(
            frames === 0
              ? { kind: 'not_zstd' }
              : { kind: 'corrupt_zstd', detail: 'data follows the last frame' },
          );
        frames += 1;
        return;
      }
      case 'skippable_size':
        skip = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
        state = { at: 'magic' };
        return;
      case 'descriptor': {
        const d = bytes[0]!;
        if (d & 0x08) refuse({ kind: 'corrupt_zstd', detail: 'a frame header sets a reserved bit' });
        const singleSegment = (d >> 5) & 1;
        const fcsFlag = d >> 6;
        const dictBytes = [0, 1, 2, 4][d & 3]!;
        const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
        const need = (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
        state =
          need === 0
            ? { at: 'block', checksum: ((d >> 2) & 1) === 1 }
            : { at: 'header', descriptor: d, need };
        return;
      }
      case 'header': {
        const d = state.descriptor;
        const singleSegment = (d >> 5) & 1;
        const fcsFlag = d >> 6;
        const dictBytes = [0, 1, 2, 4][d & 3]!;
        let at = 0;
        let window = 0;
        if (!singleSegment) {
          const w = bytes[at++]!;
          const base = 2 ** (10 + (w >> 3));
          window = base + (base / 8) * (w & 7);
        }
        let dictionary = 0;
        for (let i = 0; i < dictBytes; i++) dictionary += bytes[at++]! * 2 ** (8 * i);
        if (dictionary !== 0) refuse({ kind: 'zstd_dictionary' });
        if (singleSegment) {
          let size = 0;
          for (let i = at; i < bytes.length; i++) size += bytes[i]! * 2 ** (8 * (i - at));
          window = fcsFlag === 1 ? size + 256 : size;
        }
        if (window > maxWindowBytes) refuse({ kind: 'window_too_large', limitBytes: maxWindowBytes });
        state = { at: 'block', checksum: ((d >> 2) & 1) === 1 };
        return;
      }
      case 'block': {
        const header = bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16);
        const last = header & 1;
        const type = (header >> 1) & 3;
        const size = header >>> 3;
        if (type === 3) refuse({ kind: 'corrupt_zstd', detail: 'a block has the reserved type' });
        skip = (type === 1 ? 1 : size) + (last && state.checksum ? 4 : 0);
        if (last) state = { at: 'magic' };
        return;
      }
    }
  }

  return {
    feed(chunk: Uint8Array): void {
      let i = 0;
      while (i < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          skip -= n;
          i += n;
          continue;
        }
        held.push(chunk[i++]!);
        if (held.length === needOf(state)) {
          const bytes = held;
          held = [];
          step(bytes);
        }
      }
    },
    /** The input ended: it must end between frames, after at least one. */
    end(): void {
      if (frames === 0) refuse({ kind: 'not_zstd' });
      if (skip > 0 || held.length > 0 || state.at !== 'magic')
        refuse({ kind: 'corrupt_zstd', detail: 'it ends inside a frame' });
    },
  };
}

/** The decompressed bytes of `source`, in order, each chunk at most one zstd block (128 KiB). */
export async function* decompressZstd(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  limits: ZstdLimits,
): AsyncGenerator<Uint8Array> {
  const guard = createFrameGuard(limits.maxWindowBytes);
  let ready: Uint8Array[] = [];
  let total = 0;
  const decoder = new Decompress((data) => {
    total += data.length;
    if (total > limits.maxUnpackedBytes)
      refuse({ kind: 'unpacked_too_large', limitBytes: limits.maxUnpackedBytes });
    if (data.length > 0) ready.push(data);
  });
  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      decoder.push(chunk, final);
    } catch (err) {
      if (err instanceof BundleRefusal) throw err;
      refuse({ kind: 'corrupt_zstd', detail: describeZstdError(err) });
    }
  };
  for await (const chunk of source) {
    if (chunk.length === 0) continue;
    guard.feed(chunk);
    push(chunk, false);
    const out = ready;
    ready = [];
    yield* out;
  }
  guard.end();
  push(new Uint8Array(0), true);
  yield* ready;
}

function describeZstdError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\.+$/, '').slice(0, 200) || 'the decoder refused it';
}
