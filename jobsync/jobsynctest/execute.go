package jobsynctest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// Carrying a plan out: its API calls in order, each against the fake API
// server with the faults the config injects.

// call is one API call of a plan.
type call struct {
	kind     string // "release", "adopt", "unfinalize-delete", "delete", "create", "interim", "unfinalize", "status"
	pod      jobsync.PodRef
	creation *jobsync.PodCreation
	claim    *jobsync.PodClaim
	status   *batchv1.JobStatus
	deletion int // index in plan.Deletions
}

func planCalls(plan *jobsync.Plan, finalizersFirst bool) []call {
	var calls []call
	for i, r := range plan.Releases {
		calls = append(calls, call{kind: "release", pod: r.Pod, claim: &plan.Releases[i]})
	}
	for i, a := range plan.Adoptions {
		calls = append(calls, call{kind: "adopt", pod: a.Pod, claim: &plan.Adoptions[i]})
	}
	for i, d := range plan.Deletions {
		if d.RemoveFinalizer {
			calls = append(calls, call{kind: "unfinalize-delete", pod: d.Pod, deletion: i})
		}
		calls = append(calls, call{kind: "delete", pod: d.Pod, deletion: i})
	}
	for i := range plan.Creations {
		calls = append(calls, call{kind: "create", creation: &plan.Creations[i]})
	}
	removals := make([]call, 0, len(plan.FinalizerRemovals))
	for _, r := range plan.FinalizerRemovals {
		removals = append(removals, call{kind: "unfinalize", pod: r.Pod})
	}
	if finalizersFirst {
		calls = append(calls, removals...)
		removals = nil
	}
	if plan.InterimStatus != nil {
		calls = append(calls, call{kind: "interim", status: plan.InterimStatus})
	}
	calls = append(calls, removals...)
	if plan.Status != nil {
		calls = append(calls, call{kind: "status", status: plan.Status})
	}
	return calls
}

func (c *Cluster) retryDelay() time.Duration {
	d := retryBase
	for k := 1; k < c.apiRetries && d < retryMax; k++ {
		d *= 2
	}
	return min(d, retryMax)
}

// do carries out one API call against the fake API server.
func (c *Cluster) do(cl call, plan *jobsync.Plan, snap jobsync.Snapshot, rv *string) error {
	switch cl.kind {
	case "release", "adopt":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return errNotFound
		}
		patched, err := apirules.ApplyClaim(sp.obj, *cl.claim, cl.kind == "adopt")
		if err != nil {
			return err
		}
		c.update(sp, func(p *corev1.Pod) { *p = *patched })
		c.maybeRemove(sp) // a release drops the tracking finalizer
		return nil
	case "unfinalize-delete", "unfinalize":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return nil // upstream treats a pod gone as a removal done
		}
		if c.check != nil {
			c.check.FinalizerRemoval(checkedPod(sp), cl.kind == "unfinalize-delete", plan, snap)
		}
		if podlife.HasFinalizer(sp.obj, c.fin) {
			c.update(sp, func(p *corev1.Pod) {
				// DeleteFunc writes in place: the list is shared with
				// the earlier versions of the pod (see update).
				p.Finalizers = slices.DeleteFunc(slices.Clone(p.Finalizers), func(f string) bool { return f == c.fin })
			})
			c.maybeRemove(sp)
		}
		return nil
	case "delete":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return nil // not found: the controller counts it as observed
		}
		c.result.Deleted++
		c.deletePod(sp)
		return nil
	case "create":
		c.result.Created++
		sp := c.createPod(cl.creation.Pod)
		if c.check != nil {
			c.check.Created(checkedPod(sp), plan, snap)
		}
		return nil
	case "interim", "status":
		if c.job == nil {
			return errNotFound
		}
		if c.job.ResourceVersion != *rv {
			c.result.Faults.Conflicts++
			return errConflict
		}
		if errs := apirules.ValidateStatusUpdate(c.job, cl.status); len(errs) > 0 {
			c.result.Faults.Rejections++
			msg := strings.Join(errs, "; ")
			if c.check != nil {
				c.check.Rejected(cl.kind, errs, len(errs) == 1 && errs[0] == apirules.MsgNoStartTime)
			}
			return fmt.Errorf("status rejected: %s", msg)
		}
		j := c.job.DeepCopy()
		j.Status = *cl.status.DeepCopy()
		if c.check != nil {
			c.check.StatusWritten(c.job, j, cl.kind == "status")
		}
		c.storeJob(j)
		*rv = j.ResourceVersion
		return nil
	}
	return fmt.Errorf("unknown call %q", cl.kind)
}
