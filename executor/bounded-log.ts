/**
 * A log within a byte budget: all of it, or its first quarter and last three quarters of the budget
 * (where a failure usually shows) around a line saying how many bytes were left out. The executor
 * cuts a run's log with it before packing the run report, and the run-log store cuts stored logs the
 * same way, so a log reads alike wherever it was cut.
 */
import { open, stat } from 'node:fs/promises';

/** The file's bytes within `max`: all of it, or its head and tail around a note of what was cut. */
export async function boundedLog(path: string, max: number): Promise<{ content: Buffer; size: number }> {
  const size = (await stat(path)).size;
  const file = await open(path, 'r');
  try {
    if (size <= max) {
      const content = Buffer.alloc(size);
      await file.read(content, 0, size, 0);
      return { content, size };
    }
    const headBytes = Math.floor(max / 4);
    const tailBytes = max - headBytes;
    const head = Buffer.alloc(headBytes);
    const tail = Buffer.alloc(tailBytes);
    await file.read(head, 0, headBytes, 0);
    await file.read(tail, 0, tailBytes, size - tailBytes);
    const note = Buffer.from(
      `\n# railyard: ${size - headBytes - tailBytes} bytes left out here (log limit)\n`,
    );
    return { content: Buffer.concat([head, note, tail]), size };
  } finally {
    await file.close();
  }
}

/** A buffer within `max` bytes, cut like boundedLog cuts a file. */
export function boundedBuffer(content: Buffer, max: number): Buffer {
  if (content.length <= max) return content;
  const head = Math.floor(max / 4);
  const tail = max - head;
  const note = Buffer.from(`\n# railyard: ${content.length - head - tail} bytes left out here (log limit)\n`);
  return Buffer.concat([content.subarray(0, head), note, content.subarray(content.length - tail)]);
}
