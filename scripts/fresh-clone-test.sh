#!/usr/bin/env bash
# A new user's first hour, checked: clone this repository into a fresh private (0700) directory,
# run the README's set-up (`npm install`) and `npm test` there with no TEST_DATABASE_URL, inside a
# network namespace that has nothing but loopback. It proves that the suite needs no PostgreSQL
# server, no network and no particular folder (a private folder used to break the embedded
# PostgreSQL when run as root). npm takes the packages from its cache, so run `npm ci` (or
# `npm install`) once outside first. Prints the wall time of each step.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/popagent-fresh-XXXXXX")"
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$repo" "$work/popagent"
echo "fresh clone: $work/popagent (mode $(stat -c %a "$work"), user $(id -un))"

inside() {
  # `unshare --net` gives a namespace whose only interface is lo, down until raised.
  if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --net true 2>/dev/null; then
    unshare --net bash -c 'ip link set lo up && ip -o link show | cut -d: -f2 | tr -d " " | paste -sd, | sed "s/^/interfaces: /" && "$@"' inside "$@"
  else
    echo "no network namespace here (needs root and unshare): running with the network"
    "$@"
  fi
}

cd "$work/popagent"
step() {
  local name=$1
  shift
  local started=$SECONDS
  inside env -u TEST_DATABASE_URL -u DATABASE_URL "$@"
  echo "fresh clone: $name took $((SECONDS - started)) s"
}
step 'npm install' npm install --offline --no-audit --no-fund
step 'npm test' npm test
