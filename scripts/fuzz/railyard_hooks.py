"""Schemathesis hooks for railyard's fuzz run (scripts/fuzz/run.ts loads them).

Generated repository names almost never name a queue that exists, so on their own the requests stop
at validation or at "no such queue". To reach the queue and PR workflows too, half of the generated
bodies that carry a `repo` object are pointed at the queue the run created (and a quarter at one of
its open PRs); the other half keep what was generated. deleteQueue is never pointed at it. The choice is a hash of the body, so a seed
still reproduces a run. Only the location changes: invalid values elsewhere in the body stay invalid.
"""

import hashlib
import json
import os

import schemathesis

REPO = {
    "host": os.environ.get("FUZZ_REPO_HOST", ""),
    "owner": os.environ.get("FUZZ_REPO_OWNER", ""),
    "name": os.environ.get("FUZZ_REPO_NAME", ""),
}
BRANCH = os.environ.get("FUZZ_BRANCH", "main")
PRS = int(os.environ.get("FUZZ_PRS", "0"))


def _roll(body: dict) -> int:
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    return int(digest, 16)


@schemathesis.hook
def map_body(context, body):
    if not REPO["host"] or not isinstance(body, dict) or not isinstance(body.get("repo"), dict):
        return body
    # Deleting the queue would leave every later request at "no such queue".
    if context.operation is not None and context.operation.path.endswith("/deleteQueue"):
        return body
    roll = _roll(body)
    if roll % 4 >= 2:
        return body
    body = dict(body, repo=dict(REPO))
    if isinstance(body.get("targetBranch"), str):
        body["targetBranch"] = BRANCH
    pr = body.get("pr")
    if roll % 4 == 0 and PRS > 0 and isinstance(pr, dict) and "number" in pr:
        body["pr"] = dict(pr, number=1 + (roll // 4) % PRS)
    return body
