/**
 * The one refusal of run content over RAILYARD_RUN_CONTENT_MAX_MB, whether a run's own bundle (full or
 * thin, store/run-content.ts) or the basis it needs (store/run-bases.ts): the activity adapter makes it
 * a failure that is not retried.
 */
export class RunContentTooLarge extends Error {
  constructor(size: number, max: number, what = "the tested commit's git bundle") {
    super(
      `${what} is ${Math.ceil(size / 1024 / 1024)} MiB, more than the ` +
        `${Math.floor(max / 1024 / 1024)} MiB an executor is handed (RAILYARD_RUN_CONTENT_MAX_MB)`,
    );
    this.name = 'RunContentTooLarge';
  }
}
