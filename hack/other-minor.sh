#!/usr/bin/env bash
# other-minor.sh [K8S_VERSION [CONTROLLER_RUNTIME_VERSION]]: runs go vet and
# go test of the library, of the controller module and of controller/crjob
# once more, on another Kubernetes minor than their go.mod files require
# (default v0.37.2, with controller-runtime v0.25.2, the release built on
# it; the go.mod files require the oldest supported minor, which the main
# CI pass tests). crjob's envtest suite runs on the kube-apiserver and etcd
# that controller/cmd/envtest-assets builds (ENVTEST_ASSETS_DIR).
#
# It works on a scratch copy of the two modules: k8s.io/api, apimachinery
# (and client-go for the controller) are moved with `go get`, and the
# copy's controller/go.mod is pointed at the copied library by a replace
# that is never committed. The tree itself is left as it is.
set -euo pipefail

k8s=${1:-v0.37.2}
cr=${2:-v0.25.2}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/jobsync-minor.XXXXXX")
trap 'rm -rf "$work"' EXIT

tar -C "$src" --exclude=./.git --exclude=./conformance --exclude=./controller/integration \
  --exclude=./go.work --exclude=./go.work.sum -cf - . | tar -C "$work" -xf -
# envtest-assets' default release is checked against the integration
# module's go.mod: that file comes along (a module of its own, which the
# controller's ./... leaves out).
mkdir -p "$work/controller/integration" && cp "$src/controller/integration/go.mod" "$work/controller/integration/"
export GOWORK=off

echo "== library on k8s.io $k8s (scratch copy)"
cd "$work"
go get "k8s.io/api@$k8s" "k8s.io/apimachinery@$k8s"
go mod tidy
test "$(go list -m -f '{{.Version}}' k8s.io/api)" = "$k8s"
go vet ./...
go test ./...

echo "== controller on k8s.io $k8s (scratch copy)"
cd "$work/controller"
go mod edit -replace github.com/jobsync/jobsync=../
go get "k8s.io/api@$k8s" "k8s.io/apimachinery@$k8s" "k8s.io/client-go@$k8s"
go mod tidy
test "$(go list -m -f '{{.Version}}' k8s.io/client-go)" = "$k8s"
go vet ./...
go test ./...

echo "== controller/crjob on k8s.io $k8s and controller-runtime $cr (scratch copy)"
assets="${ENVTEST_ASSETS_DIR:-${TMPDIR:-/tmp}/jobsync-envtest-assets}"
(cd "$src/controller" && GOWORK= go run ./cmd/envtest-assets -o "$assets")
cd "$work/controller/crjob"
go mod edit -replace github.com/jobsync/jobsync=../../ -replace github.com/jobsync/jobsync/controller=../
go get "k8s.io/api@$k8s" "k8s.io/apimachinery@$k8s" "k8s.io/client-go@$k8s" "sigs.k8s.io/controller-runtime@$cr"
go mod tidy
test "$(go list -m -f '{{.Version}}' sigs.k8s.io/controller-runtime)" = "$cr"
go vet ./...
KUBEBUILDER_ASSETS="$assets" go test -timeout 15m ./...
