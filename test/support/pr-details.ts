/** A submitted PR's details (contract PrDetails) as the queue sends them, for tests of records and what shows them. */
import type { PrDetails } from '../../contract';

export const prDetails = (overrides: Partial<PrDetails> = {}): PrDetails => ({
  title: 't',
  headSha: 'a'.repeat(40),
  baseBranch: 'main',
  author: 'ada',
  priorityValue: 100,
  priorityName: 'medium',
  usedDefaultPriorityName: 'medium',
  noBatch: false,
  readiness: {
    hasImpactedTargets: false,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'mergeable',
  },
  ...overrides,
});
