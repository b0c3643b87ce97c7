#!/usr/bin/env bash
# ensure_debian_package <package> <command> <what it is for>: installs Debian's <package> when <command>
# (a program name or path) is missing. As root it runs apt-get, like ensure-deps.sh does for PostgreSQL;
# otherwise it prints the command to run and goes on (what needs it then fails or is skipped, naming it).
# Safe to run repeatedly. Sourced by scripts/ensure-chromium.sh and scripts/ensure-bwrap.sh (bubblewrap, passt).
ensure_debian_package() {
  local package=$1 program=$2 purpose=$3
  say() { echo "railyard setup: $*" >&2; }
  command -v "$program" >/dev/null && return 0
  if ! command -v apt-get >/dev/null; then
    say "$package is missing and apt-get is not available; install $program for $purpose."
    return 0
  fi
  if [ "$(id -u)" != "0" ]; then
    say "$package is missing; $purpose needs it: sudo apt-get install -y --no-install-recommends $package"
    return 0
  fi
  say "installing $package for $purpose (apt-get install $package)..."
  apt-get update -qq >&2 || say "apt-get update failed; trying the install with the lists there are."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >&2 \
    || say "apt-get install $package failed; $purpose will not work until $program is installed."
}
