"""Schemathesis hooks for railyard's fuzz run (scripts/fuzz/run.ts loads them).

Generated names and ids almost never name something that exists, so on their own the requests stop at
validation or at "not found". To go deeper, a share of the generated requests is pointed at what the
run seeded (scripts/fuzz/seed.ts, passed as JSON in FUZZ_SEED):

- bodies with a `repo` object: three quarters get the seeded repository (and `targetBranch`,
  `org_url_slug` when they carry one), and two thirds of those also a seeded PR number, test id
  (check-quarantine: seeded tests by id or by name), or, half the time, a valid page token with the
  query it was issued for (list-failing-tests, list-unhealthy-tests, list-quarantined-tests;
  otherwise the first page); Trunk's `orgUrlSlug` the seeded organisation and getQuarantineConfig's
  tests seeded test ids; the case-insensitive enums of those flaky-test requests (`status`,
  `override`), which the document can only give as strings, get a valid value;
- path parameters: half get a seeded test id, ticket, subscription id (DELETE: one of the disabled
  subscriptions kept for it) or delivery id; a deliveries listing also a delivery id as cursor;
- queries naming a repository (GET /v1/flaky-tests/repository, GET /v1/getMergeQueueMetrics): half
  get the seeded one;
- webhook subscription bodies: a quarter get the local receiver as `url`; such a new subscription is
  created disabled three times out of four, so the run's own subscriptions do not multiply every
  event into deliveries;
- POST /v1/flaky-tests/upload has no body schema in the document (it reads multipart and JSON
  itself), so the fuzzer would send it nothing but empty requests: its cases get a JSON upload body
  drawn here, mostly for the seeded repository, with JUnit files of generated suites and test cases
  (every outcome the parser knows, generated names and messages, seeded test names), now and then
  a file that is not well-formed.

deleteQueue is never pointed at the seeded queue. The choice is a hash of the generated request, so a
seed still reproduces a run. Only names, ids and tokens change (and the fields a token is bound to):
invalid values elsewhere stay invalid. A 5xx that an operation declares by its own code (GET /readyz's
503) is not a failure (filter_failure).
"""

import hashlib
import json
import os
from xml.sax.saxutils import escape, quoteattr

import schemathesis
from hypothesis import strategies as st
from schemathesis.core import NotSet

SEED = json.loads(os.environ.get("FUZZ_SEED") or "null")


def _roll(*parts) -> int:
    text = json.dumps(parts, sort_keys=True, default=str)
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def _pick(items: list, roll: int):
    return items[roll % len(items)]


def _page_query(generated, size: int, token: str) -> dict:
    query = dict(generated) if isinstance(generated, dict) else {}
    query["page_size"] = size
    query["page_token"] = token
    return query


def _deep_flaky(path: str, body: dict, roll: int) -> None:
    """A seeded test, or a page token with the query it was issued for (the first page otherwise)."""
    flaky = SEED["flaky"]
    test = _pick(flaky["tests"], roll)
    for field in ("test_id", "test_case_id"):
        if field in body:
            body[field] = test["id"]
    if path.endswith("/check-quarantine") and isinstance(body.get("failed_tests"), list):
        failed = []
        for i, item in enumerate(body["failed_tests"]):
            if isinstance(item, dict):
                chosen = _pick(flaky["tests"], roll + i)
                item = dict(item)
                if "test_id" in item:
                    item["test_id"] = chosen["id"]
                else:
                    for field in ("file", "variant"):
                        item.pop(field, None)
                    item.update(name=chosen["name"], classname=chosen["classname"], parent=chosen["parent"])
            failed.append(item)
        body["failed_tests"] = failed
    # Enums accepted in any case are plain strings in the document: name a value the API knows.
    if path.endswith("/set-quarantine-override") and "override" in body:
        body["override"] = _pick(["ALWAYS_QUARANTINE", "NEVER_QUARANTINE", "UNSPECIFIED", "always_quarantine"], roll // 3)
    if "page_query" not in body:
        return
    tokens = flaky["tokens"]
    continued = (roll // 7) % 2 == 0
    if path.endswith("/list-failing-tests"):
        body.update(flaky["range"])
        token = tokens["failing"]
    elif path.endswith("/list-unhealthy-tests"):
        status = "FLAKY" if (roll // 11) % 2 == 0 else "BROKEN"
        body["status"] = status
        token = tokens[status.lower()]
    elif path.endswith("/list-quarantined-tests"):
        token = tokens["quarantined"]
    else:
        return
    if continued:
        body["page_query"] = _page_query(body["page_query"], 1, token)
    elif isinstance(body["page_query"], dict):
        body["page_query"] = dict(body["page_query"], page_token="")


def _map_body(path: str, method: str, body, roll: int):
    if not isinstance(body, dict):
        return body
    if path.startswith("/v1/webhooks/subscriptions") and method in ("post", "patch"):
        if "url" in body and roll % 4 == 0:
            body = dict(body, url=SEED["webhooks"]["receiver"] + "/fuzz")
            if method == "post" and (roll // 4) % 4 != 0:
                body["enabled"] = False
        return body
    if not isinstance(body.get("repo"), dict):
        return body
    # Deleting the queue would leave every later request at "no such queue".
    if path.endswith("/deleteQueue") or roll % 4 == 3:
        return body
    body = dict(body, repo=dict(SEED["repo"]))
    if isinstance(body.get("targetBranch"), str):
        body["targetBranch"] = SEED["branch"]
    if "org_url_slug" in body:
        body["org_url_slug"] = SEED["org"]
    if "orgUrlSlug" in body:
        body["orgUrlSlug"] = SEED["org"]
    if roll % 4 == 2:
        return body
    pr = body.get("pr")
    if SEED["prs"] > 0 and isinstance(pr, dict) and "number" in pr:
        body["pr"] = dict(pr, number=1 + (roll // 4) % SEED["prs"])
    if path.startswith("/v1/flaky-tests/"):
        _deep_flaky(path, body, roll // 4)
    if path.endswith("/getQuarantineConfig") and isinstance(body.get("testIdentifiers"), list):
        body["testIdentifiers"] = [
            dict(item, id=_pick(SEED["flaky"]["tests"], roll + i)["id"]) if isinstance(item, dict) else item
            for i, item in enumerate(body["testIdentifiers"])
        ]
    return body


def _map_path(path: str, method: str, params: dict, roll: int) -> dict:
    if roll % 2 != 0 or not isinstance(params, dict):
        return params
    roll //= 2
    flaky, hooks = SEED["flaky"], SEED["webhooks"]
    params = dict(params)
    if path == "/v1/flaky-tests/tests/{test_id}":
        params["test_id"] = _pick(flaky["tests"], roll)["id"]
    elif path == "/v1/flaky-tests/tickets/{ticket}":
        params["ticket"] = flaky["ticket"]
    elif path == "/v1/webhooks/subscriptions/{id}":
        params["id"] = _pick(hooks["doomed"] if method == "delete" else hooks["subscriptions"], roll)
    elif path == "/v1/webhooks/subscriptions/{id}/deliveries":
        params["id"] = hooks["subscriptions"][0]
    elif path == "/v1/webhooks/deliveries/{id}":
        params["id"] = _pick(hooks["deliveries"], roll)
    return params


def _map_query(path: str, query: dict, roll: int, subscription) -> dict:
    repo = SEED["repo"]
    if path == "/v1/flaky-tests/repository" and roll % 2 == 0:
        return dict(query, **repo)
    if path == "/v1/getMergeQueueMetrics" and roll % 2 == 0:
        return dict(query, repo=f"{repo['owner']}/{repo['name']}", repoHost=repo["host"])
    # Any delivery of the subscription is a cursor of its listing.
    main = SEED["webhooks"]["subscriptions"][0]
    if path == "/v1/webhooks/subscriptions/{id}/deliveries" and subscription == main and roll % 2 == 0:
        return dict(query, cursor=_pick(SEED["webhooks"]["deliveries"], roll // 2))
    return query


# JUnit for the upload cases: generic-dialect suites whose test cases end in every outcome.
_OUTCOMES = {
    "pass": "",
    "failure": "<failure message={m} type=\"AssertionError\">{b}</failure>",
    "error": "<error message={m} type=\"Error\">{b}</error>",
    "skipped": "<skipped message={m}/>",
    "flaky": "<flakyFailure message={m}>{b}</flakyFailure>",
    "rerun": "<failure message={m}>{b}</failure><rerunFailure message={m}>{b}</rerunFailure>",
}


# Characters XML 1.0 can carry (control characters are in the damaged files below).
_XML_TEXT = st.characters(exclude_categories=("Cs", "Cc", "Cn"))


@st.composite
def _testcase(draw, names) -> str:
    name = draw(st.one_of(st.sampled_from(names), st.text(_XML_TEXT, min_size=1, max_size=30)))
    classname = draw(st.sampled_from(["shop.Cart", "shop.Checkout", ""]))
    message = draw(st.text(_XML_TEXT, max_size=40))
    outcome = _OUTCOMES[draw(st.sampled_from(sorted(_OUTCOMES)))]
    timing = draw(st.one_of(st.just(""), st.floats(0, 1e6, allow_nan=False).map(lambda t: f" time=\"{t}\"")))
    inner = outcome.format(m=quoteattr(message), b=escape(message))
    return f"<testcase classname={quoteattr(classname)} name={quoteattr(name)}{timing}>{inner}</testcase>"


@st.composite
def _junit(draw, names) -> str:
    suites = []
    for _ in range(draw(st.integers(1, 3))):
        cases = draw(st.lists(_testcase(names), min_size=1, max_size=8))
        suite = draw(st.sampled_from(["checkout", "cart", "pytest tests"]))
        suites.append(f"<testsuite name={quoteattr(suite)} tests=\"{len(cases)}\">{''.join(cases)}</testsuite>")
    xml = f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>{''.join(suites)}</testsuites>"
    # Now and then not well-formed: cut off, or with a stray character.
    damage = draw(st.sampled_from(["none"] * 8 + ["cut", "stray"]))
    if damage == "cut":
        return xml[: draw(st.integers(1, len(xml) - 1))]
    if damage == "stray":
        at = draw(st.integers(0, len(xml)))
        return xml[:at] + draw(st.sampled_from(["<", "&", "\x01", "]]>"])) + xml[at:]
    return xml


def _mostly(valid, invalid):
    """`valid` about seven times in eight (and what hypothesis shrinks towards)."""
    return st.integers(0, 7).flatmap(lambda i: invalid if i == 7 else valid)


def _upload_bodies():
    repo = SEED["repo"]
    names = [t["name"] for t in SEED["flaky"]["tests"]]
    any_text = st.text(max_size=12)
    required = {
        "org_url_slug": _mostly(st.just(SEED["org"]), any_text),
        "repo": _mostly(st.just(dict(repo)), st.fixed_dictionaries({"host": any_text, "owner": any_text, "name": any_text})),
        "upload_id": _mostly(st.just("fuzz-"), st.text(max_size=30)),
        "commit_sha": _mostly(st.sampled_from([f"{n:x}".rjust(40, "c") for n in range(1, 6)]), any_text),
        "branch": _mostly(
            st.sampled_from(["main", "feature/cart", "railyard-merge/pr-1/abc", "gh-readonly-queue/main/pr-2"]), any_text
        ),
        "files": _mostly(
            st.lists(st.fixed_dictionaries({"name": st.sampled_from(["junit.xml", "report.xml"]), "content": _junit(names)}), min_size=1, max_size=3),
            st.lists(st.fixed_dictionaries({"name": any_text, "content": any_text}), max_size=2),
        ),
    }
    optional = {
        "attempt": _mostly(st.integers(1, 3), st.one_of(st.integers(), st.text(max_size=3))),
        "pr_number": _mostly(st.integers(1, 30), st.one_of(st.integers(), st.text(max_size=3))),
        "variant": _mostly(st.sampled_from(["", "linux", "mac"]), st.text(max_size=300)),
        "job_name": st.text(max_size=20),
        "job_url": _mostly(st.just("https://ci.example.com/jobs/9"), any_text),
        "codeowners": _mostly(st.sampled_from(["* @fuzz/owners\n", "/shop/ @fuzz/shop\n"]), st.text(max_size=40)),
    }
    return st.fixed_dictionaries(required, optional=optional)


def _with_upload(case, body):
    # A generated upload id is made unique to the content, so the same id rarely comes back with other
    # content (a 409): the uploads go on to ingestion.
    if isinstance(body.get("upload_id"), str) and body["upload_id"].startswith("fuzz-"):
        body = dict(body, upload_id=f"fuzz-{_roll(body) % 16**12:012x}")
    case.body = body
    case.media_type = "application/json"
    return case


@schemathesis.hook
def flatmap_case(context, case):
    if SEED is None or case.operation.path != "/v1/flaky-tests/upload":
        return st.just(case)
    return _upload_bodies().map(lambda body: _with_upload(case, body))


@schemathesis.hook
def map_case(context, case):
    if SEED is None:
        return case
    path, method = case.operation.path, case.method.lower()
    body = None if isinstance(case.body, NotSet) else case.body
    roll = _roll(method, path, case.path_parameters, case.query, body)
    if isinstance(case.path_parameters, dict) and case.path_parameters:
        mapped = _map_path(path, method, case.path_parameters, roll)
        if mapped != case.path_parameters:
            case.path_parameters = mapped
    if isinstance(case.query, dict):
        subscription = (case.path_parameters or {}).get("id")
        mapped = _map_query(path, case.query, roll // 3, subscription)
        if mapped != case.query:
            case.query = mapped
    if body is not None:
        case.body = _map_body(path, method, body, roll // 5)
    return case


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """A 5xx the operation declares by its own code is its designed answer, not a server error: GET
    /readyz answers 503 (naming the check that failed) when, say, the worker does not answer its ping
    in time on a loaded machine. Every other 5xx, and any answer off the document, still fails."""
    if getattr(failure, "code", None) != "ST101":
        return True
    declared = (case.operation.definition.raw or {}).get("responses", {})
    return str(response.status_code) not in declared
