/**
 * The HTTP headers of the thin content hand-off (issue 25, ADR 0025), shared by the API's routes
 * (api/routes/executor/run-content.ts, run-basis.ts) and the executor (content-fetch.ts), so neither
 * side can spell them differently.
 */

/** Sent by an executor that takes thin content (`1`); absent: it is served full bundles only. */
export const THIN_CONTENT_HEADER = 'x-railyard-thin-content';
/** The basis commit a thin bundle needs; absent on a full bundle. */
export const BASIS_HEADER = 'x-railyard-basis';
/** The organisation whose object cache keeps the basis (an executor's cache is per organisation). */
export const ORGANISATION_HEADER = 'x-railyard-organisation';
