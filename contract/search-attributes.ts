/**
 * Custom search attributes, so operators can find any queue or PR in the Temporal UI by repository,
 * target branch, PR number or PR state. They are registered with the dev server by scripts/lib/temporal.ts
 * (`--search-attribute`) and in production by the setup job in docker-compose.yml.
 *
 * The names are stable: the server indexes them, and visibility queries and recorded histories carry
 * them. The only contract file that imports `@temporalio/common`, which defines the keys
 * (`@temporalio/workflow` does not re-export them); both packages run inside the workflow sandbox.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const REPOSITORY = defineSearchAttributeKey('RailyardRepository', SearchAttributeType.KEYWORD);
export const TARGET_BRANCH = defineSearchAttributeKey('RailyardTargetBranch', SearchAttributeType.KEYWORD);
export const PR_NUMBER = defineSearchAttributeKey('RailyardPrNumber', SearchAttributeType.INT);
export const PR_STATE = defineSearchAttributeKey('RailyardPrState', SearchAttributeType.KEYWORD);

/** `Name=Type` pairs as `temporal server start-dev --search-attribute` and the operator CLI take them. */
export const SEARCH_ATTRIBUTE_FLAGS = [
  'RailyardRepository=Keyword',
  'RailyardTargetBranch=Keyword',
  'RailyardPrNumber=Int',
  'RailyardPrState=Keyword',
];
