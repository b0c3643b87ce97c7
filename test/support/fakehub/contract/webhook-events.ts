/**
 * The GitHub webhook events fakehub delivers, by their key in GitHub's webhook description
 * (`@octokit/openapi-webhooks`: `<event>-<action>` with `_` written `-`, or the bare event for events
 * without actions). This list is the single source of the committed subset
 * (scripts/github/extract-openapi-webhooks.ts extracts exactly these) and of the fake's payload check:
 * a delivery whose key is not listed has no contract and is itself a violation.
 */
export const SERVED_WEBHOOKS = [
  'check-run-completed',
  'check-run-created',
  'installation-repositories-added',
  'issue-comment-created',
  'issue-comment-deleted',
  'issue-comment-edited',
  'pull-request-closed',
  'pull-request-converted-to-draft',
  'pull-request-edited',
  'pull-request-opened',
  'pull-request-ready-for-review',
  'pull-request-reopened',
  'pull-request-review-dismissed',
  'pull-request-review-submitted',
  'pull-request-synchronize',
  'push',
  'status',
] as const;

export type WebhookKey = (typeof SERVED_WEBHOOKS)[number];

/** The key of an event and action in the description (`pull_request` + `opened` → `pull-request-opened`). */
export function webhookKey(event: string, action: string | null): string {
  return (action === null ? event : `${event}-${action}`).replace(/_/g, '-');
}

/** The package and file the subset is extracted from (the release of the @octokit/openapi 23.x era). */
export const WEBHOOKS_SOURCE = {
  package: '@octokit/openapi-webhooks',
  version: '12.1.0',
  file: 'generated/api.github.com.json',
} as const;
