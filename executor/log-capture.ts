/**
 * Captures a test command's stdout and stderr into its log file, up to a byte cap.
 *
 * Invariants:
 *  - The file never receives more than `maxBytes` of output (plus one closing note): output past the
 *    cap is read and dropped, so the command is never blocked on a full pipe, and `onLimit` is called
 *    once, when the cap is first reached (the runner then stops the run).
 *  - Chunks are written in the order they arrive, each whole or cut at the cap; stdout and stderr are
 *    interleaved chunk by chunk.
 *  - `done` resolves when every stream has ended (the process group is gone) and the note, if any, is
 *    written.
 */
import { writeSync } from 'node:fs';
import type { Readable } from 'node:stream';

export interface LogCapture {
  /** Resolves with the bytes kept and dropped once all streams ended. */
  readonly done: Promise<{ written: number; dropped: number }>;
}

export function captureOutput(
  streams: readonly Readable[],
  fd: number,
  maxBytes: number,
  onLimit: () => void,
): LogCapture {
  let written = 0;
  let dropped = 0;
  const write = (chunk: Buffer) => {
    const room = maxBytes - written;
    if (room <= 0) {
      dropped += chunk.length;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    writeSync(fd, kept);
    written += kept.length;
    dropped += chunk.length - kept.length;
    if (written >= maxBytes) onLimit();
  };
  const ended = streams.map(
    (stream) =>
      new Promise<void>((resolve) => {
        stream.on('data', write);
        stream.once('close', resolve);
        stream.once('error', () => resolve());
      }),
  );
  const done = Promise.all(ended).then(() => {
    if (dropped > 0 || written >= maxBytes)
      writeSync(
        fd,
        `\n# railyard: the log reached its limit of ${maxBytes} bytes; ${dropped} more bytes of output were not kept\n`,
      );
    return { written, dropped };
  });
  return { done };
}
