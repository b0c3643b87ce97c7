/**
 * The entries of an uploaded tar archive, read as a stream with tar-stream. Only regular files come
 * out; the archive is hostile, so:
 * - a link, device or FIFO, an absolute name, a name with a `..` segment, a backslash or a NUL is
 *   refused (railyard never writes entries to disk, but a name it would echo or map must be plain);
 * - directories are skipped, an entry that appears twice is refused, and at most `maxEntries`
 *   entries are read.
 * Each entry's body must be consumed or drained (drain()) before the next one is asked for; the
 * archive's bytes flow only as fast as the consumer reads.
 */
import { Readable } from 'node:stream';
import { extract, type Header } from 'tar-stream';
import { BundleRefusal, refuse } from './errors';

export interface TarEntry {
  /** The name without a leading `./`. */
  readonly name: string;
  readonly size: number;
  readonly body: AsyncIterable<Buffer>;
}

type HeaderType = Header['type'];

/** Why an entry of this type is refused; null for a type that is read or skipped. */
function refusedType(type: HeaderType): string | null {
  switch (type) {
    case 'file':
    case 'contiguous-file':
    case 'directory':
      return null;
    case 'link':
    case 'symlink':
      return 'it is a link';
    case 'block-device':
    case 'character-device':
    case 'fifo':
      return 'it is a device or FIFO';
    default:
      return `its type ${JSON.stringify(String(type))} is not a regular file`;
  }
}

/** The entry's name made plain, or the reason it is refused. */
export function plainEntryName(raw: string): { ok: true; name: string } | { ok: false; reason: string } {
  if (raw.includes('\0')) return { ok: false, reason: 'its name contains a NUL character' };
  if (raw.includes('\\')) return { ok: false, reason: 'its name contains a backslash' };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw))
    return { ok: false, reason: 'its name is an absolute path' };
  const name = raw.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  const segments = name.split('/');
  if (segments.some((s) => s === '..')) return { ok: false, reason: 'its name leaves the archive with ".."' };
  if (name === '' || segments.some((s) => s === '' || s === '.'))
    return { ok: false, reason: 'its name is empty or not a plain path' };
  return { ok: true, name };
}

export async function* readTarEntries(
  source: AsyncIterable<Uint8Array>,
  options: { readonly maxEntries: number },
): AsyncGenerator<TarEntry> {
  const archive = extract();
  // The source's own error (a BundleRefusal from the decompressor) wins over tar-stream's "premature close".
  const failed: { error: Error | null } = { error: null };
  const input = Readable.from(source, { objectMode: false });
  input.on('error', (err: Error) => {
    failed.error = err;
    archive.destroy(err);
  });
  input.pipe(archive);
  const seen = new Set<string>();
  let entries = 0;
  try {
    for await (const entry of archive) {
      const header = entry.header;
      const named = plainEntryName(header.name);
      if (!named.ok) refuse({ kind: 'unsafe_entry', name: header.name, reason: named.reason });
      const reason = refusedType(header.type);
      if (reason !== null) refuse({ kind: 'unsafe_entry', name: header.name, reason });
      entries += 1;
      if (entries > options.maxEntries) refuse({ kind: 'too_many_entries', limit: options.maxEntries });
      if (header.type === 'directory') {
        entry.resume();
        continue;
      }
      const name = named.ok ? named.name : header.name;
      if (seen.has(name)) refuse({ kind: 'duplicate_entry', name });
      seen.add(name);
      // streamx readables iterate as Node streams do; the entry carries Buffers.
      yield { name, size: header.size, body: bodyOf(entry as unknown as AsyncIterable<Buffer>, failed) };
      // Whatever the consumer left unread is skipped, so the archive moves on.
      entry.resume();
    }
  } catch (err) {
    if (failed.error) throw failed.error;
    if (err instanceof BundleRefusal) throw err;
    refuse({ kind: 'corrupt_tar', detail: describeTarError(err) });
  } finally {
    input.unpipe(archive);
    input.destroy();
    archive.destroy();
  }
  if (failed.error) throw failed.error;
}

/**
 * An entry's bytes as its consumer reads them, with the archive's faults as the archive's: an archive
 * that ends inside an entry (a size field changed, the upload cut) fails that entry's read, in the
 * consumer's code, not this generator's — and must still be a corrupt_tar refusal (400), not a 500.
 */
async function* bodyOf(
  entry: AsyncIterable<Buffer>,
  failed: { error: Error | null },
): AsyncGenerator<Buffer> {
  try {
    yield* entry;
  } catch (err) {
    if (failed.error) throw failed.error;
    if (err instanceof BundleRefusal) throw err;
    refuse({ kind: 'corrupt_tar', detail: describeTarError(err) });
  }
}

function describeTarError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.replace(/\.+$/, '').slice(0, 200) || 'it ends early').toLowerCase();
}

/** First size at which readEntry shows what arrived so far to `checkPrefix`; doubled each time. */
const FIRST_PREFIX_CHECK_BYTES = 1024 * 1024;

/**
 * Reads a whole entry into memory, refusing it past `limitBytes` (413) as soon as it is. With
 * `checkPrefix`, the bytes read so far are shown to it at 1, 2, 4… MiB (at most twice the entry's
 * bytes copied in all), so a check that can refuse on a prefix refuses before the rest is unpacked.
 */
export async function readEntry(
  entry: TarEntry,
  limitBytes: number,
  checkPrefix?: (prefix: Buffer) => void,
): Promise<Buffer> {
  if (entry.size > limitBytes) refuse({ kind: 'entry_too_large', name: entry.name, limitBytes });
  const chunks: Buffer[] = [];
  let total = 0;
  let nextCheck = FIRST_PREFIX_CHECK_BYTES;
  for await (const chunk of entry.body) {
    total += chunk.length;
    if (total > limitBytes) refuse({ kind: 'entry_too_large', name: entry.name, limitBytes });
    chunks.push(chunk);
    if (checkPrefix !== undefined && total >= nextCheck) {
      nextCheck = total * 2;
      checkPrefix(Buffer.concat(chunks));
    }
  }
  return Buffer.concat(chunks);
}
