package crjob

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// TestOptionsDefaults: the name is required and must not be the built-in
// controller's; the finalizer is derived from it; only Jobs managed by
// that name run.
func TestOptionsDefaults(t *testing.T) {
	for _, bad := range []Options{{}, {ControllerName: jobsync.DefaultControllerName}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("Options %+v accepted", bad)
		}
	}
	o, err := Options{ControllerName: "example.com/mine"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Sync.TrackingFinalizer != "example.com/mine-tracking" || o.Sync.ControllerName != "example.com/mine" || o.Workers <= 0 {
		t.Errorf("defaults %+v", o)
	}
	for _, tc := range []struct {
		managedBy *string
		want      bool
	}{{nil, false}, {new("example.com/other"), false}, {new(jobsync.DefaultControllerName), false}, {new("example.com/mine"), true}} {
		if got := o.runs(&batchv1.Job{Spec: batchv1.JobSpec{ManagedBy: tc.managedBy}}); got != tc.want {
			t.Errorf("runs(managedBy %v) = %v, want %v", tc.managedBy, got, tc.want)
		}
	}
}
