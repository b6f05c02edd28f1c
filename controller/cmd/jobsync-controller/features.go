package main

import (
	"fmt"

	"k8s.io/component-base/featuregate"

	"github.com/jobsync/jobsync/jobsync"
)

// The feature gates Kubernetes' Job controller consults, with their state
// in v1.36 (the release jobsync decides as). The GA gates are locked, as
// in kube-controller-manager: setting one to other than its default is
// refused. StaleControllerConsistencyJob is beta upstream, but this
// controller has no path without the check it guards, so it is locked
// here; so is WorkloadWithJob (alpha, off upstream by default), whose
// objects this controller does not watch (the alpha/workload136 module
// decides them for callers that do).
const (
	gateMutableSchedulingDirectives featuregate.Feature = "MutableSchedulingDirectivesForSuspendedJobs"
)

var jobGates = map[featuregate.Feature]featuregate.FeatureSpec{
	gateMutableSchedulingDirectives: {Default: true, PreRelease: featuregate.Beta},
	"WorkloadWithJob":               {Default: false, PreRelease: featuregate.Alpha, LockToDefault: true},
	"StaleControllerConsistencyJob": {Default: true, PreRelease: featuregate.Beta, LockToDefault: true},
	"JobManagedBy":                  {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"JobPodReplacementPolicy":       {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"JobBackoffLimitPerIndex":       {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"JobSuccessPolicy":              {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"SidecarContainers":             {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
}

// featureGates is a mutable gate that is also a flag.Value.
type featureGates interface {
	featuregate.MutableFeatureGate
	String() string
}

// newFeatureGate returns a gate knowing the Job controller's gates; it is
// also the --feature-gates flag value (it parses "A=true,B=false" and
// refuses unknown and locked gates, as Kubernetes components do).
func newFeatureGate() featureGates {
	g := featuregate.NewFeatureGate()
	if err := g.Add(jobGates); err != nil {
		panic(fmt.Sprintf("jobsync-controller: the feature gate table: %v", err)) // a programming error
	}
	return g
}

// applyGates sets the jobsync.Options the gates stand for.
func applyGates(g featuregate.FeatureGate, opts jobsync.Options) jobsync.Options {
	opts.KeepStartTimeOnSuspend = !g.Enabled(gateMutableSchedulingDirectives)
	return opts
}

// gatesFlag is the --feature-gates flag. The flag package prints a flag's
// default by calling String on a zero value of its type, which the
// component-base gate does not survive; this wrapper's zero value does.
type gatesFlag struct{ gates featureGates }

func (f *gatesFlag) String() string {
	if f == nil || f.gates == nil {
		return ""
	}
	return f.gates.String()
}

func (f *gatesFlag) Set(value string) error { return f.gates.Set(value) }
