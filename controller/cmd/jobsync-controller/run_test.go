package main

import (
	"flag"
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
