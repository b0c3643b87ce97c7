/**
 * Public surface of the flaky-test classifier (flaky-detection.md §5). Pure functions only.
 */
export { classify, classifyAll } from './classify';
export { transition, mustRecord, type StatusTransition, type StoredStatus } from './transitions';
export {
  CLASSIFICATION_BOUNDS,
  DEFAULT_CLASSIFICATION_PARAMS,
  capStoredOverrides,
  jsonSchemaBounds,
  resolveClassificationParams,
  ClassificationParamsError,
  type NumberBound,
  type NumberKey,
  type ClassificationParams,
  type RepositoryClassificationOverrides,
} from './params';
export { branchClassOf, isStableSet } from './branch-class';
export { summariseUpload, isInfraUpload, infraUploadIds } from './infra';
export { resultIdentity } from './history';
export { statusEvidence, type StatusEvidence } from './evidence';
export {
  outcomeOfStatus,
  type BranchClass,
  type Classification,
  type ManualFlag,
  type ObservedResult,
  type Outcome,
  type ReasonCode,
  type TestHistory,
  type TestStatus,
  type UploadSummary,
} from './types';
