#!/usr/bin/env bash
# outside-check.sh [SRC]: proves that a Go user outside this repository can
# fetch and build the modules of the tree SRC (default: this one) as a
# release of them would publish them.
#
# hack/modproxy zips the library, the controller module and
# alpha/workload136 at VERSION (default: the version controller/go.mod
# requires of the library, which is the version released together) into
# a file-system GOPROXY. Then, in fresh modules in a temporary directory,
# with GOWORK=off, -mod=mod and no replace, a user's program (hack/consumer)
# using jobsync, executor and memory is built and run twice: on k8s.io
# v0.36 with controller-runtime v0.24 (and alpha/workload136 too, where the
# tree has it), and on
# k8s.io v0.37 with controller-runtime v0.25. Last, jobsync-controller and
# jobsim are installed with `go install PKG@VERSION`, which refuses a module
# whose go.mod has a replace.
#
# The module cache of the check is its own (fed from the machine's cache
# as a second proxy), so that zips of unreleased versions never enter the
# machine's cache, where a later check would find them stale.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${1:-$here/..}" && pwd)
version=${VERSION:-$(awk '$1 == "github.com/jobsync/jobsync" { print $2; exit }' "$src/controller/go.mod")}
k8s_old=${K8S_OLD:-v0.36.5} cr_old=${CR_OLD:-v0.24.1}
k8s_new=${K8S_NEW:-v0.37.2} cr_new=${CR_NEW:-v0.25.2}
echo "outside check of $src at $version"

work=$(mktemp -d "${TMPDIR:-/tmp}/jobsync-outside.XXXXXX")
cleanup() { chmod -R u+w "$work" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

modules=("$src" "$src/controller")
alpha=no # the alpha module, where the tree has one
if [ -d "$src/alpha/workload136" ]; then
  modules+=("$src/alpha/workload136")
  alpha=yes
fi
(cd "$here/modproxy" && GOWORK=off go run . -out "$work/proxy" -version "$version" "${modules[@]}")

machine_cache=$(go env GOMODCACHE)
export GOWORK=off
# -trimpath keeps the module cache directory out of the build cache keys,
# so that later checks reuse the compiled packages.
export GOFLAGS="$(go env GOFLAGS) -trimpath -mod=mod"
export GOPROXY="file://$work/proxy,file://$machine_cache/cache/download,$(go env GOPROXY)"
export GONOSUMDB=github.com/jobsync/jobsync
export GOMODCACHE="$work/modcache"
export GOBIN="$work/bin"

# want MODULE VERSION: the consumer's build list has MODULE at VERSION.
want() {
  local got
  got=$(go list -m -f '{{.Version}}' "$1")
  if [ "$got" != "$2" ]; then
    echo "FAIL: $1 is at $got in the build list, want $2" >&2
    return 1
  fi
}

# consumer K8S CR ALPHA: a user's module on k8s.io K8S and
# controller-runtime CR, with alpha/workload136 when ALPHA is yes. As a
# user would, it gets the controller module alone first: the library comes
# in at the version the controller requires, which must be the release's.
consumer() {
  local k8s=$1 cr=$2 alpha=$3 dir="$work/consumer-$1"
  mkdir -p "$dir"
  cd "$dir"
  go mod init example.com/consumer >/dev/null 2>&1
  sed '/^\/\/go:build ignore$/d' "$here/consumer/main.go" > main.go
  go get "github.com/jobsync/jobsync/controller@$version"
  if [ "$alpha" = yes ]; then
    sed '/^\/\/go:build ignore$/d' "$here/consumer/alpha.go" > alpha.go
    go get "github.com/jobsync/jobsync/alpha/workload136@$version"
  fi
  go get "k8s.io/api@$k8s" "k8s.io/apimachinery@$k8s" "k8s.io/client-go@$k8s" "sigs.k8s.io/controller-runtime@$cr"
  go mod tidy
  if grep -q '^replace' go.mod; then
    echo "FAIL: the consumer's go.mod has a replace" >&2
    return 1
  fi
  want github.com/jobsync/jobsync "$version"
  want github.com/jobsync/jobsync/controller "$version"
  want k8s.io/api "$k8s"
  want k8s.io/client-go "$k8s"
  want sigs.k8s.io/controller-runtime "$cr"
  go vet .
  go build -o consumer .
  ./consumer
}

# install: go install of both commands at the version, which Go refuses
# for a module whose go.mod has a replace.
install() {
  cd "$work"
  export GOFLAGS="${GOFLAGS% -mod=mod}"
  go install "github.com/jobsync/jobsync/controller/cmd/jobsync-controller@$version"
  go install "github.com/jobsync/jobsync/cmd/jobsim@$version"
  local cmd built
  for cmd in jobsync-controller jobsim; do
    built=$(go version -m "$GOBIN/$cmd" | awk '$1 == "mod" { print $3 }')
    if [ "$built" != "$version" ]; then
      echo "FAIL: $cmd was built from its module at $built, want $version" >&2
      return 1
    fi
    echo "$cmd: built from its module at $built"
  done
  "$GOBIN/jobsync-controller" -h >/dev/null 2>&1 || [ $? -eq 2 ]
  "$GOBIN/jobsim" plan -f "$src/testdata/jobs/plan/distributed-training/job.yaml" >/dev/null
}

# step NAME CMD...: runs CMD in a subshell that stops at its first
# failure, and goes on with the next step, so that one run shows every
# step that fails.
failed=()
step() {
  local name=$1 rc
  shift
  echo "== $name"
  set +e
  (set -e; "$@")
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "FAILED: $name" >&2
    failed+=("$name")
  fi
}

step "consumer on k8s.io $k8s_old, controller-runtime $cr_old (alpha/workload136: $alpha)" consumer "$k8s_old" "$cr_old" "$alpha"
step "consumer on k8s.io $k8s_new, controller-runtime $cr_new" consumer "$k8s_new" "$cr_new" no
step "go install of the commands at $version" install
if [ ${#failed[@]} -gt 0 ]; then
  printf 'outside check FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "outside check passed: $version of every module builds for a Go user on k8s.io $k8s_old and $k8s_new"
