package harness

import (
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// normalize puts o in the form compared by diff. Only the order of lists
// whose order carries no decision is fixed here: upstream creates and
// deletes pods from parallel goroutines (their calls arrive in any order),
// and the UIDs of status.uncountedTerminatedPods and of the expected
// finalizer removals are sets. Which pods are chosen is compared as is.
func normalize(o *Outcome) {
	sort.SliceStable(o.Deletions, func(i, j int) bool {
		a, b := o.Deletions[i], o.Deletions[j]
		if a.Pod != b.Pod {
			return a.Pod < b.Pod
		}
		return !a.RemoveFinalizer && b.RemoveFinalizer
	})
	if len(o.Deletions) == 0 {
		o.Deletions = nil
	}

	creations := make([]*corev1.Pod, len(o.Creations))
	for i, p := range o.Creations {
		creations[i] = p.DeepCopy()
	}
	sort.SliceStable(creations, func(i, j int) bool {
		a, b := creations[i], creations[j]
		if ia, ib := completionIndex(a), completionIndex(b); ia != ib {
			return ia < ib
		}
		return a.GenerateName < b.GenerateName
	})
	if len(creations) == 0 {
		creations = nil
	}
	o.Creations = creations

	for _, st := range []*batchv1.JobStatus{o.InterimStatus, o.Status} {
		if st == nil || st.UncountedTerminatedPods == nil {
			continue
		}
		u := st.UncountedTerminatedPods
		u.Succeeded, u.Failed = sortUIDs(u.Succeeded), sortUIDs(u.Failed)
	}
	e := &o.Expectations
	if e.Creations <= 0 && e.Deletions <= 0 {
		// The moment only matters while something is pending.
		e.SetAt = time.Time{}
	}
}
