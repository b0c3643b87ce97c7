/**
 * A duration in the units a person reads ("5 h", "1 h 30 min", "2.5 s", "600 ms"), for logs and pages
 * that show configured limits and measured times (issue 29: a run log's header said
 * `timeout 18000000 ms`).
 *
 * Rules: at most two units, the larger first, and a unit is left out when it is zero ("2 h", not
 * "2 h 0 min"); below a minute, seconds with one decimal under 10 s ("2.5 s") and whole above ("42 s");
 * below a second, whole milliseconds. Exact for whole hours and minutes, so a configured limit reads
 * as it was set; a longer measured time is rounded to the smaller unit shown (1 h 0 min 40 s → "1 h 1
 * min"). Days are shown as hours (a testing timeout is set in minutes and read in hours).
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`a duration must be a finite number ≥ 0, got ${ms}`);
  if (Math.round(ms) < SECOND) return `${Math.round(ms)} ms`;
  if (ms < MINUTE) {
    const seconds = ms < 10 * SECOND ? Math.round(ms / 100) / 10 : Math.round(ms / SECOND);
    return seconds >= 60 ? '1 min' : `${seconds} s`;
  }
  if (ms < HOUR) {
    const seconds = Math.round(ms / SECOND);
    const [min, s] = [Math.floor(seconds / 60), seconds % 60];
    if (min >= 60) return '1 h';
    return s === 0 ? `${min} min` : `${min} min ${s} s`;
  }
  const minutes = Math.round(ms / MINUTE);
  const [h, min] = [Math.floor(minutes / 60), minutes % 60];
  return min === 0 ? `${h} h` : `${h} h ${min} min`;
}
