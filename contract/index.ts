/**
 * The workflow contract: everything the API, the activities and the worker set-up may know about the
 * workflows (docs/adr/0007-workflow-contract.md). Ids, search attributes, type names, inputs, and the
 * signals, updates and queries with the types they carry; the repository key they all use.
 *
 * Outside workflows/, code imports workflows only through this index and the engine's index (a lint
 * rule holds it). Files here import `@temporalio/workflow` / `@temporalio/common` for the define*
 * helpers, the engine's index and each other; nothing else, so the contract stays plain data and names.
 */
export * from './ids';
export * from './pull-request-messages';
export * from './stalled-checks';
export * from './preflight';
export * from './queue-messages';
export * from './repository-key';
export * from './search-attributes';
export * from './test-run-messages';
export * from './workflow-types';
export * from './pr-reasons';
export * from './words';
export * from './test-status-why';
export * from './json-bytes';
export * from './pr-record';
export * from './queue-view-delta';
export * from './flaky-reevaluation-messages';
export * from './commit-message';
export * from './avoid-shas';
