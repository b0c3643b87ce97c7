/**
 * Per-workflow slots: at most `perKey` calls of one workflow run at once in this process, the others
 * wait first come first served.
 *
 * Invariants: a released slot passes straight to the next waiter (it is never free while someone
 * waits); a waiter not admitted by its deadline gets null and leaves the line; releasing twice is a
 * no-op; an idle workflow's line is dropped, so the map holds only workflows with calls in flight.
 */
export type Slots = (key: string, until: number) => Promise<(() => void) | null>;

export function createSlots(perKey: number): Slots {
  const lines = new Map<string, { active: number; waiting: (() => void)[] }>();
  return (key, until) => {
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { active: 0, waiting: [] }));
    const own = line;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = own.waiting.shift();
      // The slot passes to the next waiter as is; only an idle line is dropped.
      if (next) next();
      else if (--own.active === 0) lines.delete(key);
    };
    if (own.active < perKey) {
      own.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(
        () => {
          own.waiting.splice(own.waiting.indexOf(admit), 1);
          resolve(null);
        },
        Math.max(0, until - Date.now()),
      );
      own.waiting.push(admit);
    });
  };
}
