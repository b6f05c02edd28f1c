package workload136

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/jobsync/jobsync/jobsync"
)

// claims is what the gate's step needs to know of jobsync's claiming of
// pods, which the plan does not say outright.
type claims struct {
	// kept says whether the Job has any pod after claiming: one it
	// controls that its selector matches, or one it adopts.
	kept bool
	// notes is the number of notes the claiming added to the plan (pods
	// left alone, orphans not adopted); they come before the gate's.
	notes int
}

// claimsOf follows upstream's ownership rules as jobsync applies them
// (jobsync's scan): a pod in another namespace or controlled by another
// owner is left alone; one the Job controls is kept while its selector
// matches it; an orphan is adopted unless the Job or the pod is being
// deleted or the selector does not match it, and is then counted as not
// adopted. The adoptions themselves are read from the plan.
func claimsOf(s jobsync.Snapshot, plan jobsync.Plan) claims {
	job := s.Job
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	c := claims{kept: len(plan.Adoptions) > 0}
	var foreign, orphaned bool
	for _, p := range s.Pods {
		ref := metav1.GetControllerOfNoCopy(p)
		switch {
		case p.Namespace != job.Namespace:
			foreign = true
		case ref != nil && !(ref.UID == job.UID && ref.Kind == "Job" && ref.Name == job.Name):
			foreign = true
		case ref != nil:
			if sel.Matches(labels.Set(p.Labels)) {
				c.kept = true
			}
		case job.DeletionTimestamp != nil || p.DeletionTimestamp != nil || !sel.Matches(labels.Set(p.Labels)):
			orphaned = true
		}
	}
	if foreign {
		c.notes++
	}
	if orphaned {
		c.notes++
	}
	return c
}

// started reports whether the Job has ever run, which denies it a new
// Workload: any pod after claiming (held in s.Active or s.Succeeded, or
// left out as settled, too), a startTime, finished pods counted, or a
// Suspended condition (suspension clears startTime, so a Job suspended
// early would otherwise look new).
func started(s jobsync.Snapshot, c claims) bool {
	st := &s.Job.Status
	if c.kept || s.Active.Len() != 0 || s.Succeeded.Len() != 0 || s.SettledPods != 0 || st.StartTime != nil || st.Succeeded != 0 || st.Failed != 0 {
		return true
	}
	for _, cond := range st.Conditions {
		if cond.Type == batchv1.JobSuspended {
			return true
		}
	}
	return false
}
