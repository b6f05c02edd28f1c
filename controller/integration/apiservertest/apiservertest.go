// Package apiservertest runs a real control plane inside a test process: etcd
// v3.6 embedded from go.etcd.io/etcd/server/v3, and kube-apiserver v1.36.5
// from k8s.io/kubernetes, with nothing hand-written in between. Every write
// goes through the API server's defaulting, validation, admission and
// resourceVersion checks, including the Job status subresource.
//
// One etcd serves a whole test binary (start it from TestMain with Main);
// each test gets its own API server with its own storage prefix, so tests
// see only their own objects. An API server starts in about two seconds once
// the test binary is built. Start takes a small interface, T, so that it
// works from plain go test and from Ginkgo (GinkgoT()) alike.
//
// It links in kube-apiserver itself (several hundred k8s.io/kubernetes
// packages, with the staging module pins they need). A project that only
// needs a real API server for its controllers is better served by
// controller-runtime's envtest, which runs kube-apiserver and etcd binaries
// (see the controller module's jobtest and cmd/envtest-assets); this
// package is for tests that want the server in the test process itself.
package apiservertest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
)

// Flags are the kube-apiserver flags every test server gets. No service
// account controller runs, so the ServiceAccount admission plugin, which
// would reject pods until a default service account exists, is off; with no
// real network the endpoint reconciler is off too. Both as upstream's own
// integration tests run the API server.
var Flags = []string{
	"--endpoint-reconciler-type=none",
	"--disable-admission-plugins=ServiceAccount",
}

// Server is one running kube-apiserver.
type Server struct {
	// Config reaches the server as a cluster administrator. Each caller
	// should copy it (rest.CopyConfig) before changing rate limits or
	// wrapping its transport.
	Config *rest.Config
	// Client is a clientset on Config, without client-side rate limits.
	Client kubernetes.Interface
}

var shared struct {
	once sync.Once
	etcd *embed.Etcd
	url  string
	dir  string
	err  error
}

// Main runs the tests of a package with one etcd for all of them and removes
// etcd's data when they end. Call it from TestMain:
//
//	func TestMain(m *testing.M) { apiservertest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared.etcd != nil {
		shared.etcd.Close()
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// Start starts a kube-apiserver on the test binary's etcd (starting etcd
// first if this is the first server) and stops it when t ends.
func Start(t T) *Server {
	t.Helper()
	return StartWith(t)
}

// StartWith is Start with kube-apiserver flags added to Flags, such as
// "--authorization-mode=Node,RBAC" for a server that enforces RBAC (the
// test server allows everything by default).
func StartWith(t T, flags ...string) *Server {
	t.Helper()
	tb := &fullTB{T: t}
	shared.once.Do(func() { shared.etcd, shared.url, shared.dir, shared.err = startEtcd() })
	if shared.err != nil {
		t.Fatalf("starting etcd: %v", shared.err)
	}
	storage := storagebackend.NewDefaultConfig(path.Join("/", sanitize(tb.Name()), fmt.Sprint(time.Now().UnixNano()), "registry"), nil)
	storage.Transport.ServerList = []string{shared.url}

	flags = append(slices.Clone(Flags), flags...)
	srv, err := startOne(tb, storage, flags)
	if err != nil {
		// A start that times out on a loaded machine is tried once more,
		// on a storage prefix of its own.
		t.Logf("starting kube-apiserver failed, trying once more: %v", err)
		storage.Prefix += "-again"
		srv, err = startOne(tb, storage, flags)
	}
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(srv.TearDownFn)

	cfg := rest.CopyConfig(srv.ClientConfig)
	cfg.QPS, cfg.Burst = -1, -1 // no client-side throttling in tests
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return &Server{Config: srv.ClientConfig, Client: client}
}

// starting serializes the start-up of API servers within a test binary.
// Started together on a 2-core machine, several servers can miss their
// start-up deadlines (a post-start hook that fails ends the whole process);
// one at a time, each is ready in a few seconds, and the servers still run
// side by side once started.
var starting sync.Mutex

func startOne(t ktesting.TB, storage *storagebackend.Config, flags []string) (apiserver.TestServer, error) {
	starting.Lock()
	defer starting.Unlock()
	return apiserver.StartTestServer(t, nil, flags, storage)
}

// startEtcd starts a single-member etcd on free loopback ports, with fsync
// off (the data is thrown away after the tests).
func startEtcd() (*embed.Etcd, string, string, error) {
	dir, err := os.MkdirTemp("", "jobsync-etcd")
	if err != nil {
		return nil, "", "", err
	}
	clientURL, err := freeLoopbackURL()
	if err != nil {
		return nil, "", "", err
	}
	peerURL, err := freeLoopbackURL()
	if err != nil {
		return nil, "", "", err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", "", err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		e.Close()
		os.RemoveAll(dir)
		return nil, "", "", fmt.Errorf("etcd was not ready within a minute")
	}
	return e, clientURL.String(), dir, nil
}

// freeLoopbackURL finds a free TCP port on 127.0.0.1. The port is released
// before etcd binds it; another process could take it in between, which on a
// test machine is rare enough to accept.
func freeLoopbackURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	return url.Parse("http://" + addr)
}

// sanitize keeps a test name usable as an etcd key prefix.
func sanitize(name string) string {
	out := []rune(name)
	for i, r := range out {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			out[i] = '-'
		}
	}
	return string(out)
}
