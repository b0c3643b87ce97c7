/**
 * The queue client (docs/glossary.md): the one Temporal-level client of the queue and PR workflows,
 * for the API and the GitHub handlers. It imports only the contract, the engine's index, platform,
 * store types and @temporalio/client; nothing of api/ or github/ (the lint floors hold it). Its errors
 * are QueueClientErrors (errors.ts), which each caller words for its own audience.
 *
 * - calls.ts / gateway.ts: deadline-bounded calls, per-workflow slots, busy retries; the API's connection
 * - client.ts: start, read, find, update and signal queues; read and list PR workflows
 * - lost-update.ts: which failed updates the server gave up unapplied, so client.ts sends them again
 * - admission.ts: waiting for a queue to admit a submission
 * - visibility.ts: the visibility queries, every value escaped
 */
export * from './admission';
export * from './batches';
export * from './calls';
export * from './client';
export * from './errors';
export * from './gateway';
export * from './visibility';
