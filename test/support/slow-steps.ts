/**
 * Teardown steps that say when they are slow: a hook that times out then names what it waited for
 * (a deployment's executor, its API, fakehub's server) instead of only "Exceeded timeout".
 */
export function slowStepReporter(what: string, afterMs = 10_000) {
  return async (name: string, run: () => Promise<unknown>): Promise<void> => {
    const started = Date.now();
    const timer = setInterval(
      () =>
        console.error(`${what}: ${name} still running after ${Math.round((Date.now() - started) / 1000)} s`),
      afterMs,
    );
    try {
      await run();
    } finally {
      clearInterval(timer);
    }
  };
}
