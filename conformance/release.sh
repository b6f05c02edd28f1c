#!/usr/bin/env bash
# release.sh runs this module's tests against another release of
# k8s.io/kubernetes than the one go.mod pins, in a scratch copy of the
# repository:
#
#   conformance/release.sh v1.37.2                  # go test ./...
#   conformance/release.sh v1.37.2 -short ./...
#   JOBSYNC_CONFORMANCE_N=20000 conformance/release.sh v1.37.2 -timeout 4h -run 'TestConformance$' -v .
#
# The copy holds the repository's files as they are in the work tree
# (committed or not, ignored ones left out); hack/bump-kubernetes.sh moves its
# conformance/go.mod to the release, and `go test` runs there with the
# release's build tag, upstream_1_<minor> (the few files that differ between
# releases are split on it: `go list -tags upstream_1_37 -f '{{.GoFiles}}'`).
# Arguments after the version go to `go test` (default ./...); the
# JOBSYNC_CONFORMANCE_* variables pass through. The copy is left in
# ${JOBSYNC_RELEASE_DIR:-$TMPDIR/jobsync-conformance-<version>} for
# `go run ./cmd/mismatch -tags ...` there, and replaced on the next run.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 v1.MINOR.PATCH [go test arguments]" >&2
  exit 2
fi
version=$1
shift
minor=${version#v1.}
minor=${minor%%.*}
tag="upstream_1_${minor}"

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${JOBSYNC_RELEASE_DIR:-${TMPDIR:-/tmp}/jobsync-conformance-$version}
rm -rf "$dir"
mkdir -p "$dir"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --) | tar -xf - -C "$dir"
"$dir/hack/bump-kubernetes.sh" "$version" "$dir/conformance"

cd "$dir/conformance"
# A module that replaces the library itself needs no workspace, and one
# would mix in the other modules' replaces of the staging modules (still at
# the pinned release): build it alone.
if grep -Eq '^[[:space:]]*(replace[[:space:]]+)?github\.com/jobsync/jobsync => \.\./?$' go.mod; then
  export GOWORK=off
fi
if [ $# -eq 0 ]; then
  set -- ./...
fi
echo "== go test -tags $tag $* (k8s.io/kubernetes $version, in $dir)"
# -mod=mod: go.sum was written by `go mod tidy -e`, which cannot resolve the
# imports of the files the tag leaves out (packages the release removed).
GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" go vet -tags "$tag" ./...
GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" go test -tags "$tag" "$@"
