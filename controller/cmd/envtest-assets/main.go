// Command envtest-assets builds the binaries controller-runtime's envtest
// runs, kube-apiserver and etcd, from their Go modules, so that envtest
// suites need no prebuilt download:
//
//	go run ./cmd/envtest-assets -o /tmp/envtest-assets
//	KUBEBUILDER_ASSETS=/tmp/envtest-assets go test ./...
//
// It writes a throwaway module that requires k8s.io/kubernetes at
// -kubernetes-version (with each staging module pinned to its matching
// release, as building k8s.io/kubernetes outside its repository needs) and
// builds k8s.io/kubernetes/cmd/kube-apiserver, with the version ldflags a
// release build sets, and go.etcd.io/etcd/server/v3, at the version that
// Kubernetes release requires unless -etcd-version says otherwise. Modules
// come through GOPROXY as for any build; nothing else is downloaded.
//
// The first build takes minutes; a directory that already holds the
// binaries of the same versions is left as it is.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
)

// DefaultKubernetesVersion is the release built when -kubernetes-version is
// not given: the one the integration module's API server runs.
const DefaultKubernetesVersion = "v1.36.5"

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "o", "", "directory to write kube-apiserver and etcd to (required); KUBEBUILDER_ASSETS points at it")
	flag.StringVar(&cfg.kubernetes, "kubernetes-version", DefaultKubernetesVersion, "k8s.io/kubernetes release to build kube-apiserver from")
	flag.StringVar(&cfg.etcd, "etcd-version", "", "go.etcd.io/etcd/server/v3 version; empty means the one the Kubernetes release requires")
	flag.StringVar(&cfg.work, "work", "", "directory for the generated module; empty means a temporary one, removed afterwards")
	flag.Parse()
	if cfg.out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := build(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "envtest-assets:", err)
		os.Exit(1)
	}
}
