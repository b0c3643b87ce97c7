#!/usr/bin/env bash
# Installs the two tools that check the Helm chart (deploy/helm/railyard) offline in `npm test`, each
# pinned, into .tools/ (test/integration/deploy/helm-chart.test.ts):
#  - helm, built from its Go module (helm.sh/helm/v3) with `go install`: the official renderer, no
#    download site needed (the Go module proxy serves it); the build is cached by Go between runs;
#  - kubernetes-validate (PyPI), which ships Kubernetes' JSON schemas for every release since 1.25,
#    into a venv of its own (.tools/venv is the Temporal CLI's, installed at the same time).
# Safe to run repeatedly; a tool already at its version is left alone. Each failure says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION="v3.19.5"
KUBERNETES_VALIDATE_VERSION="1.37.0"
fail() { echo "railyard setup: $*" >&2; exit 1; }
say() { echo "railyard setup: $*" >&2; }

ensure_helm() {
  helm=.tools/bin/helm
  if [ -x "$helm" ] && "$helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; then
    return
  fi
  command -v go >/dev/null || fail "Go is not installed; install Go 1.24 or newer (it builds helm ${HELM_VERSION} for the chart tests)."
  say "building helm ${HELM_VERSION} (go install helm.sh/helm/v3/cmd/helm) into .tools/bin..."
  mkdir -p .tools/bin
  # The version is stamped the way helm's own Makefile does, so the check above can see it.
  GOBIN="$PWD/.tools/bin" CGO_ENABLED=0 go install \
    -ldflags "-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}" \
    "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2 \
    || fail "go install helm.sh/helm/v3/cmd/helm@${HELM_VERSION} failed; check that the Go module proxy is reachable."
}

ensure_kubernetes_validate() {
  venv=.tools/deploy-venv
  if [ -x "$venv/bin/kubernetes-validate" ] \
    && [ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null)" = "$KUBERNETES_VALIDATE_VERSION" ]; then
    return
  fi
  command -v python3 >/dev/null || fail "python3 is not installed; install Python 3.9+ (it installs kubernetes-validate)."
  say "installing kubernetes-validate==${KUBERNETES_VALIDATE_VERSION} into ${venv}..."
  mkdir -p .tools
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" \
    || fail "python3 -m venv failed; install the python3-venv package and run this again."
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}" >&2 \
    || fail "pip could not install kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}; check that PyPI is reachable."
}

ensure_helm &
helm_job=$!
status=0
(ensure_kubernetes_validate) || status=$?
wait "$helm_job" || status=$?
exit "$status"
