/**
 * The committed webhook contract subset (test/support/fakehub/contract/webhooks-subset.json) is a valid
 * OpenAPI 3.1 document holding exactly the events fakehub delivers, and equal to a fresh extraction
 * from `@octokit/openapi-webhooks` (a devDependency pinned to WEBHOOKS_SOURCE.version, so the check runs
 * in every `npm test`). The webhook validator refuses what GitHub's schemas refuse.
 */
import { join } from 'node:path';
import {
  extractWebhooksSubset,
  readWebhooksDescription,
} from '../../../scripts/github/extract-openapi-webhooks';
import { SERVED_WEBHOOKS, WEBHOOKS_SOURCE, webhookKey } from '../../support/fakehub/contract/webhook-events';
import { createWebhookValidator } from '../../support/fakehub/contract/webhook-validator';
import subset from '../../support/fakehub/contract/webhooks-subset.json';
import { devDependencies } from '../../../package.json';

const packageDir = join(__dirname, '..', '..', '..', 'node_modules', ...WEBHOOKS_SOURCE.package.split('/'));

describe('the committed webhook contract subset', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(subset));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('holds exactly the delivered events, each with a JSON body schema', () => {
    expect(Object.keys(subset.webhooks).sort()).toEqual([...SERVED_WEBHOOKS].sort());
    for (const item of Object.values(subset.webhooks))
      expect(item.post.requestBody.content['application/json'].schema.$ref).toMatch(
        /^#\/components\/schemas\/webhook-/,
      );
  });

  // Never skipped: without the package (npm install not run) readWebhooksDescription fails, naming it.
  it(`equals a fresh extraction from ${WEBHOOKS_SOURCE.package}@${WEBHOOKS_SOURCE.version}`, () => {
    expect(devDependencies[WEBHOOKS_SOURCE.package]).toBe(WEBHOOKS_SOURCE.version);
    expect(extractWebhooksSubset(readWebhooksDescription(packageDir))).toEqual(subset);
  });
});

describe('the webhook validator', () => {
  const validator = createWebhookValidator();
  const headers = {
    'user-agent': 'GitHub-Hookshot/0fa4e00',
    'x-github-hook-id': '1',
    'x-github-event': 'status',
    'x-github-hook-installation-target-id': '1',
    'x-github-hook-installation-target-type': 'integration',
    'x-github-delivery': '0b989ba4-242f-11e5-81e1-c7b6966d2516',
    'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
  };

  it('names event keys as the description does', () => {
    expect(webhookKey('pull_request', 'opened')).toBe('pull-request-opened');
    expect(webhookKey('installation_repositories', 'added')).toBe('installation-repositories-added');
    expect(webhookKey('push', null)).toBe('push');
  });

  it('refuses an event outside the subset, a missing header, a missing field and a wrong enum', () => {
    expect(validator.validate('issues', 'opened', headers, '{}')).toEqual([
      'webhook issues.opened (issues-opened) is not in the webhook contract subset',
    ]);
    const { 'x-hub-signature-256': _dropped, ...unsigned } = headers;
    void _dropped;
    const found = validator.validate('status', null, unsigned, JSON.stringify({ state: 'green' }));
    expect(found).toContain('webhook status: header X-Hub-Signature-256 is required');
    expect(found).toContain("webhook status: body must have required property 'sha' (missingProperty: sha)");
    expect(found).toContain('webhook status: body/state must be equal to one of the allowed values');
    expect(validator.validate('status', null, headers, 'not json')).toEqual([
      'webhook status: the body is not JSON',
    ]);
  });
});
