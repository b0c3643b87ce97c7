/**
 * The PR workflow's presentPullRequest activity: shows a PR's record on its host through the
 * presenter (github/presentation/pr-presenter.ts). Like the queue's git activities, it writes only to a
 * repository the queue's organisation owns (ADR 0006); without a presenter nothing is shown anywhere.
 */
import type { PresentedIds, PresentPullRequestInput, RepositoryKey } from '../contract';
import { ownedRepositoriesOnly, type PullRequestPresenter } from '../github/presentation/pr-presenter';

export function createPresentationActivities(deps: {
  presenter?: PullRequestPresenter;
  owns: (organisationId: string, repo: RepositoryKey) => Promise<boolean>;
}) {
  const presenter = ownedRepositoriesOnly(deps.presenter, deps.owns);
  return {
    presentPullRequest: (input: PresentPullRequestInput): Promise<PresentedIds> => presenter.present(input),
  };
}
