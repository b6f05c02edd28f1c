package oracle

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The status-rejected rule: the API server accepts every status write; and
// terminal-early: a terminal condition is written only once every pod of
// the Job is terminal and released.

// Rejected reports a status write the API server refused. One refusal is
// upstream's own (v1.36.3): suspending a Job clears status.startTime, and a
// Job that then fails while suspended (a pod that was terminating when the
// Job was suspended fails and exceeds the backoff limit) has its Failed
// condition refused for want of a startTime until the Job is resumed.
// Reconcile does the same; the refusal is listed in Result.Tolerated.
// noStartTime says that errs is that one refusal, of a terminal condition
// without startTime, in the API server's words.
func (k *Checker) Rejected(kind string, errs []string, noStartTime bool) {
	if noStartTime && len(errs) == 1 && k.w.Job().Spec.Suspend != nil && *k.w.Job().Spec.Suspend {
		k.w.Tolerate(fmt.Sprintf(
			"%s: %s status write refused (%s): the Job finished while suspended, and suspending cleared its startTime",
			k.w.Now().Format(time.RFC3339), kind, errs[0]))
		return
	}
	k.violate("status-rejected", "%s write: %s", kind, strings.Join(errs, "; "))
}

// StatusWritten checks a status write that adds a terminal condition: no
// pod of the Job may still be running or terminating, or still tracked.
//
// The exception is upstream's: pods the controller's informer has not shown
// yet. A view of the Job that lags behind its own status writes can make
// the controller create pods after the Job succeeded; if the Job view then
// catches up before the pod view, the Job completes (completions reached,
// nothing active in the view), which upstream, like Reconcile, decides
// without waiting for the expected creations. Such pods are listed in
// Result.Tolerated, not reported.
func (k *Checker) StatusWritten(old, updated *batchv1.Job, final bool) {
	k.recountedSurplus(&updated.Status)
	if finished(old) || !finished(updated) {
		return
	}
	var bad []string
	for _, sp := range k.w.SortedPods() {
		if !k.w.Controlled(sp.Obj) {
			continue
		}
		if !k.seen[sp.Obj.UID] {
			k.unseen = append(k.unseen, sp.Obj.UID)
			k.w.Tolerate(fmt.Sprintf(
				"%s: terminal condition written while pod %s (%s), created by the controller, was not yet in its view",
				k.w.Now().Format(time.RFC3339), sp.Obj.Name, sp.Obj.Status.Phase))
			continue
		}
		if !podlife.IsTerminal(sp.Obj) {
			bad = append(bad, sp.Obj.Name+" is not terminal")
		} else if podlife.HasFinalizer(sp.Obj, k.fin) {
			bad = append(bad, sp.Obj.Name+" still has the tracking finalizer")
		}
	}
	if len(bad) > 0 {
		k.violate("terminal-early", "terminal condition written while %s", strings.Join(bad, ", "))
	}
}
