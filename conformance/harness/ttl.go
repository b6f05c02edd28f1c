package harness

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
	"github.com/jobsync/jobsync/jobsync"
)

// TTLOutcome is one decision of the TTL-after-finished controller.
type TTLOutcome struct {
	// Error is set when the side failed; only its presence is compared.
	Error         string                `json:"error,omitempty"`
	Delete        bool                  `json:"delete,omitempty"`
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions,omitempty"`
	RequeueAfter  time.Duration         `json:"requeueAfter,omitempty"`
}

// checkTTL compares jobsync.TTLAfterFinished, used as its documentation
// says (decide on the informer's Job; before deleting, decide again on a
// fresh read and delete only if that still says so), with one processJob
// call of upstream's TTL-after-finished controller.
func checkTTL(c gen.Case, v *Verdict) {
	s := c.Snapshot
	fresh := c.TTLFresh
	if fresh == nil {
		fresh = s.Job
	}
	var lib TTLOutcome
	d, err := jobsync.TTLAfterFinished(s.Job, s.Now)
	if err == nil && d.Delete {
		d, err = jobsync.TTLAfterFinished(fresh, s.Now)
	}
	switch {
	case err != nil:
		lib.Error = err.Error()
	case d.Delete:
		lib.Delete, lib.DeleteOptions = true, d.DeleteOptions
	default:
		lib.RequeueAfter = d.RequeueAfter
	}
	v.Library = Outcome{TTL: &lib}

	r, err := upstream.RunTTL(upstream.TTLInput{Job: s.Job, Fresh: c.TTLFresh, Now: s.Now})
	if err != nil {
		v.Setup = err.Error()
		return
	}
	var up TTLOutcome
	if r.Err != nil {
		up.Error = r.Err.Error()
	}
	if r.Deleted {
		opts := r.DeleteOptions
		up.Delete, up.DeleteOptions = true, &opts
	}
	for i, d := range r.Requeues {
		if i == 0 || d < up.RequeueAfter {
			up.RequeueAfter = d
		}
	}
	v.Upstream = Outcome{TTL: &up}
	v.Diff, v.Classes = diff(v.Upstream, v.Library)
}
