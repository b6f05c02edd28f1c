package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

func TestFlags(t *testing.T) {
	c := defaultConfig()
	fs := flag.NewFlagSet("jobsync-controller", flag.ContinueOnError)
	c.bind(fs)
	err := fs.Parse([]string{"--kubeconfig", "/tmp/kc", "--controller-name", "example.com/jobsync", "--workers", "3", "--leader-elect", "--leader-elect-lease-duration", "30s"})
	if err != nil {
		t.Fatal(err)
	}
	if c.kubeconfig != "/tmp/kc" || c.controllerName != "example.com/jobsync" || c.workers != 3 || !c.leaderElect || c.leaseDuration != 30*time.Second || c.renewDeadline != 10*time.Second {
		t.Errorf("parsed %+v", c)
	}
}

func TestLeaseNameIsAValidName(t *testing.T) {
	for _, name := range []string{"example.com/jobsync", "Example.COM/Queues/Team_A"} {
		got := jobcontroller.LeaseNameFor(name)
		if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
			t.Errorf("LeaseNameFor(%q) = %q: %v", name, got, errs)
		}
	}
}

func TestRunNeedsAControllerName(t *testing.T) {
	if err := run(t.Context(), defaultConfig()); err == nil {
		t.Error("run without --controller-name: no error")
	}
}

func TestActAsBuiltInFlag(t *testing.T) {
	c := defaultConfig()
	if c.actAsBuiltIn {
		t.Fatal("the built-in mode is on by default")
	}
	fs := flag.NewFlagSet("jobsync-controller", flag.ContinueOnError)
	c.bind(fs)
	if err := fs.Parse([]string{"--act-as-builtin-job-controller"}); err != nil {
		t.Fatal(err)
	}
	if !c.actAsBuiltIn {
		t.Error("--act-as-builtin-job-controller did not turn the built-in mode on")
	}
	// With the built-in mode and a name of its own, the controller refuses
	// to start (before reaching any cluster).
	c.controllerName = "example.com/jobsync"
	c.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(c.kubeconfig, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), c); err == nil || !strings.Contains(err.Error(), "ActAsBuiltIn") {
		t.Errorf("run with --act-as-builtin-job-controller and --controller-name example.com/jobsync: %v, want the built-in mode's error", err)
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
