/**
 * fakehub for Jest: `useFakeHub()` starts one fake per test file (beforeAll), fails every test after
 * which a contract violation is recorded (afterEach → assertNoViolations), and stops it (afterAll).
 * See README.md in this folder for what is real, what is simulated and the fault knobs.
 */
import { startFakeHub, type FakeHub, type FakeHubOptions } from './server';

export {
  startFakeHub,
  type FakeHub,
  type FakeHubKnobs,
  type FakeHubOptions,
  type RequestRecord,
} from './server';
export { gitAs, type TokenGit } from './git-client';
export { workClone, type WorkClone } from './work-clone';
export { signAppJwt } from './app-auth';
export type { FakeHubWebhooks, WebhookDelivery, DeliveryOutcome } from './webhooks';
export type { Actor, HubEvent } from './events';
export type { IssueComment, Reaction, RepositoryRole, Review } from './state';

/** Registers the fake's lifecycle hooks and returns an accessor for it. */
export function useFakeHub(options: FakeHubOptions = {}): () => FakeHub {
  let hub: FakeHub | undefined;
  beforeAll(async () => {
    hub = await startFakeHub(options);
  });
  afterEach(() => {
    hub?.assertNoViolations();
  });
  afterAll(async () => {
    await hub?.close();
  });
  return () => {
    if (!hub) throw new Error('fakehub is not running: call useFakeHub() at the top of the test file');
    return hub;
  };
}
