#!/usr/bin/env bash
# set-version.sh VERSION: makes the modules of the tree require each other
# at VERSION (such as v0.38.0), the version they are next released at
# together, and points the root go.work's replace at it. See RELEASING.md.
set -euo pipefail
version=${1:?usage: hack/set-version.sh vX.Y.Z}
case "$version" in v0.*.*) ;; *) echo "set-version: $version is not v0.MINOR.PATCH" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
export GOWORK=off

# requires DIR MODULE...: DIR's go.mod requires each MODULE at version.
requires() {
  local dir=$1; shift
  local args=()
  for m in "$@"; do args+=("-require=$m@$version"); done
  (cd "$root/$dir" && go mod edit "${args[@]}")
}
requires controller github.com/jobsync/jobsync
requires alpha/workload136 github.com/jobsync/jobsync
requires conformance github.com/jobsync/jobsync github.com/jobsync/jobsync/alpha/workload136
requires controller/integration github.com/jobsync/jobsync github.com/jobsync/jobsync/controller
requires controller/crjob github.com/jobsync/jobsync github.com/jobsync/jobsync/controller
requires examples/envtest github.com/jobsync/jobsync github.com/jobsync/jobsync/controller
requires examples/customresource github.com/jobsync/jobsync github.com/jobsync/jobsync/controller
requires controller/integration github.com/jobsync/jobsync/examples/customresource
# go work edit would drop go.work's comments: the one line is rewritten.
sed -i -e "s#^replace github.com/jobsync/jobsync v[^ ]* => ./\$#replace github.com/jobsync/jobsync $version => ./#" \
  -e "s#^replace github.com/jobsync/jobsync/controller v[^ ]* => ./controller\$#replace github.com/jobsync/jobsync/controller $version => ./controller#" "$root/go.work"
grep -n "jobsync/jobsync" "$root"/go.work "$root"/controller/go.mod "$root"/alpha/workload136/go.mod \
  "$root"/conformance/go.mod "$root"/controller/integration/go.mod "$root"/controller/crjob/go.mod \
  "$root"/examples/envtest/go.mod "$root"/examples/customresource/go.mod | grep -v '^.*:module '
