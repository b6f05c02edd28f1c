#!/usr/bin/env bash
# bump-kubernetes.sh moves the modules that build k8s.io/kubernetes to one
# upstream release.
#
#   hack/bump-kubernetes.sh v1.37.2                 # every such module of the tree
#   hack/bump-kubernetes.sh v1.36.5 /tmp/copy/conformance   # only the named module directories
#
# k8s.io/kubernetes is built from its staging directories (k8s.io/api,
# client-go, ...) and its go.mod requires them at v0.0.0: outside its
# repository every staging module must be replaced by its own release of the
# same minor and patch (v1.37.2 -> v0.37.2). The list of staging modules is
# read from the release's own go.mod, so a module added or removed upstream is
# added or removed here too. For each module directory the script
#   - requires k8s.io/kubernetes at the release,
#   - drops every replace of a k8s.io module to a v0 release and writes one
#     for each staging module of the release,
#   - moves the module's own requirements on staging modules to the release,
#   - runs `go mod tidy`.
# It leaves every other line alone (the replaces of this repository's own
# modules among them). It changes go.mod and go.sum only; the code that no
# longer builds, and the decisions that no longer agree, are for the checklist
# in CONTRIBUTING.md.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 vMAJOR.MINOR.PATCH[-pre] [module-dir...]" >&2
  exit 2
fi
version=$1
shift
case "$version" in
  v1.*) ;;
  *) echo "$0: $version is not a k8s.io/kubernetes version (v1.N.M)" >&2; exit 2 ;;
esac
staging="v0.${version#v1.}"
# The modules moved here replace the staging modules themselves and stay out
# of the root go.work (CONTRIBUTING.md): work on each alone.
export GOWORK=off

root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
  set --
  while IFS= read -r mod; do
    set -- "$@" "$(dirname "$mod")"
  done < <(cd "$root" && grep -l '^[[:space:]]*k8s.io/kubernetes v' $(git ls-files '*go.mod' 2>/dev/null || find . -name go.mod -not -path './.git/*') | sort)
  if [ $# -eq 0 ]; then
    echo "$0: no go.mod under $root requires k8s.io/kubernetes" >&2
    exit 1
  fi
  set -- "${@/#/$root/}"
fi

# The release's go.mod names its staging modules: "k8s.io/X => ./staging/src/k8s.io/X".
# GOFLAGS=-mod=mod: the download must not depend on the calling module's state.
if ! info=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$version"); then
  echo "$0: the module proxy has no k8s.io/kubernetes@$version:" >&2
  echo "$info" | sed -n 's/^[[:space:]]*"Error": //p' >&2
  echo "(versions it has: go list -m -versions k8s.io/kubernetes)" >&2
  exit 1
fi
gomod=$(echo "$info" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
if [ -z "$gomod" ] || [ ! -f "$gomod" ]; then
  echo "$0: go mod download named no go.mod for k8s.io/kubernetes@$version" >&2
  exit 1
fi
mapfile -t stagingmods < <(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\1#p' "$gomod" | sort -u)
if [ "${#stagingmods[@]}" -eq 0 ]; then
  echo "$0: found no staging module in $gomod" >&2
  exit 1
fi
echo "k8s.io/kubernetes $version: ${#stagingmods[@]} staging modules at $staging"

for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  echo "== $dir"
  (
    cd "$dir"
    args=(-require "k8s.io/kubernetes@$version")
    # Staging replaces, "k8s.io/X => k8s.io/X v0.N.M", inside a replace block
    # or on a replace line of their own: moved in place (so the block and its
    # comment stay as they are), dropped when the release has no such module,
    # added when the module does not have one yet.
    mapfile -t have < <(sed -n -E 's#^[[:space:]]*(replace[[:space:]]+)?(k8s\.io/[^[:space:]]+) => k8s\.io/[^[:space:]]+ v0\..*#\2#p' go.mod)
    for old in "${have[@]}"; do
      keep=
      for m in "${stagingmods[@]}"; do
        if [ "$old" = "$m" ]; then keep=1; fi
      done
      if [ -n "$keep" ]; then
        sed -i -E "s#^([[:space:]]*(replace[[:space:]]+)?${old//./\\.} => ${old//./\\.}) v0\.[^[:space:]]*#\1 $staging#" go.mod
      else
        args+=(-dropreplace "$old")
      fi
    done
    for m in "${stagingmods[@]}"; do
      found=
      for old in "${have[@]}"; do
        if [ "$old" = "$m" ]; then found=1; fi
      done
      if [ -z "$found" ]; then args+=(-replace "$m=$m@$staging"); fi
    done
    # The module's own requirements on staging modules.
    while read -r req; do
      for m in "${stagingmods[@]}"; do
        if [ "$req" = "$m" ]; then args+=(-require "$m@$staging"); fi
      done
    done < <(sed -n -E 's#^[[:space:]]*(require[[:space:]]+)?(k8s\.io/[^[:space:]]+) v[0-9][^[:space:]]*.*#\2#p' go.mod | sort -u)
    go mod edit "${args[@]}"
    # -e: a package the release removed must not stop the move; the build
    # that follows names it.
    GOFLAGS=-mod=mod go mod tidy -e
  )
done
