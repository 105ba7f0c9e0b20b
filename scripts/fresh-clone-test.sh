#!/usr/bin/env bash
# A new user's first hour, checked: clone this repository into a fresh private (0700) directory,
# run the README's set-up (`npm install`, which needs the npm registry) and then `npm test` with
# no TEST_DATABASE_URL inside a network namespace that has nothing but loopback. It proves that the
# suite needs no PostgreSQL server, no network and no particular folder (a private folder used to
# break the embedded PostgreSQL when run as root). Prints the wall time of each step. Arguments go
# to `npm test` (CI passes --no-browser: its own run on PostgreSQL has the browser tests).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/popagent-fresh-XXXXXX")"
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$repo" "$work/popagent"
echo "fresh clone: $work/popagent (mode $(stat -c %a "$work"), user $(id -un))"
cd "$work/popagent"

started=$SECONDS
npm install --no-audit --no-fund --loglevel=error
echo "fresh clone: npm install took $((SECONDS - started)) s"

started=$SECONDS
if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  # `unshare --net` gives a namespace whose only interface is lo, down until raised.
  unshare --net bash -c '
    ip link set lo up
    echo "fresh clone: interfaces in the test namespace: $(ip -o link show | cut -d: -f2 | tr -d " " | paste -sd,)"
    exec env -u TEST_DATABASE_URL -u DATABASE_URL npm test -- "$@"' bash "$@"
else
  echo "fresh clone: no network namespace here (needs root and unshare); testing with the network"
  env -u TEST_DATABASE_URL -u DATABASE_URL npm test -- "$@"
fi
echo "fresh clone: npm test took $((SECONDS - started)) s"
