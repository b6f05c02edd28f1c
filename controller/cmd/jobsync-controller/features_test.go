package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/jobsync"
)

func parse(t *testing.T, args ...string) (config, error) {
	t.Helper()
	c := defaultConfig()
	fs := flag.NewFlagSet("jobsync-controller", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	c.bind(fs)
	return c, fs.Parse(args)
}

func TestFeatureGatesMapToOptions(t *testing.T) {
	c, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if got := applyGates(c.featureGates, jobsync.Options{}); got.KeepStartTimeOnSuspend {
		t.Errorf("default gates give %+v, want upstream's defaults (start time cleared on suspend)", got)
	}
	c, err = parse(t, "--feature-gates", "MutableSchedulingDirectivesForSuspendedJobs=false")
	if err != nil {
		t.Fatal(err)
	}
	if got := applyGates(c.featureGates, jobsync.Options{}); !got.KeepStartTimeOnSuspend {
		t.Errorf("gates flipped give %+v", got)
	}
}

func TestFeatureGatesRefused(t *testing.T) {
	for _, arg := range []string{"JobPodReplacementPolicy=false", "JobManagedBy=false", "StaleControllerConsistencyJob=false", "NoSuchGate=true", "WorkloadWithJob=true", "WorkloadWithJob=maybe"} {
		if _, err := parse(t, "--feature-gates", arg); err == nil {
			t.Errorf("--feature-gates %s: accepted", arg)
		}
	}
	// Setting a locked gate to its locked value is allowed, as upstream allows it.
	if _, err := parse(t, "--feature-gates", "JobSuccessPolicy=true"); err != nil {
		t.Errorf("--feature-gates JobSuccessPolicy=true: %v", err)
	}
}

func TestConcurrentJobSyncsAndItsDeprecatedAlias(t *testing.T) {
	for _, args := range [][]string{{"--concurrent-job-syncs", "7"}, {"--workers", "7"}} {
		c, err := parse(t, args...)
		if err != nil || c.workers != 7 {
			t.Errorf("%v: workers %d, %v", args, c.workers, err)
		}
	}
	c, _ := parse(t)
	if c.workers != 5 || c.qps != 20 || c.burst != 30 || c.metricsAddr != ":8080" || c.probeAddr != ":8081" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestHelpPrintsEveryFlag(t *testing.T) {
	c := defaultConfig()
	fs := flag.NewFlagSet("jobsync-controller", flag.ContinueOnError)
	out := new(strings.Builder)
	fs.SetOutput(out)
	c.bind(fs)
	fs.PrintDefaults()
	if strings.Contains(out.String(), "panic") || !strings.Contains(out.String(), "-feature-gates value") {
		t.Errorf("help:\n%s", out)
	}
}
