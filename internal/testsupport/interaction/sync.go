package interaction

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// A sync is Reconcile on the informer view, then the plan carried out
// against the API server step by step, in the order Plan documents, as a
// controller built on jobsync does it:
//
//	sync                     every step succeeds
//	sync fail=create         the first creation fails, and nothing after it is done
//	sync fail=create#2       the second creation fails
//
// Steps are named release, adopt, delete, create, interim, finalizer (a
// finalizer removal) and status. After a failure the controller keeps the
// plan's Expectations lowered for each step not done (the informer will
// never show it), as Plan.Expectations says to; and it keeps the plan's
// Backoff only if the interim status, which records the failures the
// backoff counts, was written.

// step is one API call of a plan.
type step struct {
	kind string
	do   func() (string, error) // carries the step out; says what it did
	text string                 // what the step would do, for steps not done
	// notDone lowers the memory for the step when it is not done.
	notDone func()
}

var errInjected = errors.New("fails (injected)")

func (w *World) sync(d Directive, out *lines) error {
	failKind, failNth, err := parseFail(d)
	if err != nil {
		return err
	}
	snap := jobsync.Snapshot{Job: w.viewJob, Now: w.now, Expectations: w.exp, Backoff: w.backoff}
	for _, n := range sortedNames(w.viewPods) {
		snap.Pods = append(snap.Pods, w.viewPods[n])
	}
	if w.OnSync != nil {
		w.OnSync(snap, w.opts)
	}
	plan, err := jobsync.Reconcile(snap, w.opts)
	if err != nil {
		return fmt.Errorf("Reconcile: %w", err)
	}
	if plan.Skipped != "" {
		out.add("skipped: %s", plan.Skipped)
	}

	exp := plan.Expectations
	// A finishing Job's deletions raise no expectations (the plan leaves
	// them as they were); only deletions the plan expects are lowered.
	deletionsExpected := exp.Deletions != snap.Expectations.Deletions || !exp.SetAt.Equal(snap.Expectations.SetAt)
	statusWritten, interimWritten := false, false
	rv := snap.Job.ResourceVersion
	uids := w.uidNames()

	var steps []step
	for _, c := range plan.Releases {
		steps = append(steps, w.claimStep("release", c, false))
	}
	for _, c := range plan.Adoptions {
		steps = append(steps, w.claimStep("adopt", c, true))
	}
	for _, del := range plan.Deletions {
		steps = append(steps, w.deleteStep(del, func() {
			if deletionsExpected {
				exp = exp.DeletionObserved()
			}
		}))
	}
	for _, c := range plan.Creations {
		steps = append(steps, w.createStep(c, func() { exp = exp.CreationObserved() }))
	}
	if plan.InterimStatus != nil {
		steps = append(steps, w.statusStep("interim", "write interim status", plan.InterimStatus, &rv, uids, &interimWritten, func() {}))
	}
	for _, r := range plan.FinalizerRemovals {
		steps = append(steps, w.finalizerStep(r, func() { exp = exp.FinalizerRemovalObserved(r.Pod.UID) }))
	}
	if plan.Status != nil {
		steps = append(steps, w.statusStep("status", "write status", plan.Status, &rv, uids, &statusWritten, func() { exp.JobFinished = false }))
	}

	seen := map[string]int{}
	stopped := false
	for _, s := range steps {
		if stopped {
			out.add("not done: %s", s.text)
			s.notDone()
			continue
		}
		seen[s.kind]++
		var text string
		var err error
		if s.kind == failKind && seen[s.kind] == failNth {
			text, err = s.text, errInjected
		} else {
			text, err = s.do()
		}
		if err != nil {
			out.add("%s", text)
			out.add("  => %v; nothing after it is done", err)
			s.notDone()
			stopped = true
			continue
		}
		out.add("%s", text)
	}
	if failKind != "" && seen[failKind] < failNth {
		return fmt.Errorf("fail=%s#%d: the plan has only %d %s steps", failKind, failNth, seen[failKind], failKind)
	}

	if len(steps) == 0 && plan.Skipped == "" {
		out.add("nothing to do")
	}
	if plan.RequeueAfter > 0 {
		out.add("requeue after %s", plan.RequeueAfter)
	}
	for _, e := range plan.Events {
		if stopped {
			// The events go with the status writes (upstream records them
			// once its writes succeeded).
			out.add("not recorded: event %s %s: %s", e.Type, e.Reason, e.Message)
			continue
		}
		out.add("event %s %s: %s", e.Type, e.Reason, e.Message)
	}
	for _, n := range plan.Notes {
		out.add("note: %s", n)
	}
	w.exp = exp
	if plan.InterimStatus == nil || interimWritten {
		w.backoff = plan.Backoff
	}
	out.add("memory: %s", describeMemory(w.exp, w.backoff, w.uidNames()))
	return nil
}

// parseFail reads fail=KIND or fail=KIND#N.
func parseFail(d Directive) (kind string, nth int, err error) {
	v, ok := d.Arg("fail")
	if !ok {
		return "", 0, nil
	}
	kind, n, hasN := strings.Cut(v, "#")
	nth = 1
	if hasN {
		if nth, err = strconv.Atoi(n); err != nil || nth < 1 {
			return "", 0, fmt.Errorf("fail=%s: want KIND#N with N from 1", v)
		}
	}
	switch kind {
	case "release", "adopt", "delete", "create", "interim", "finalizer", "status":
		return kind, nth, nil
	}
	return "", 0, fmt.Errorf("fail=%s: no such step (release, adopt, delete, create, interim, finalizer, status)", v)
}

func (w *World) claimStep(kind string, c jobsync.PodClaim, adopt bool) step {
	text := fmt.Sprintf("%s %s: %s", kind, c.Pod.Name, c.Reason)
	return step{kind: kind, text: text, notDone: func() {}, do: func() (string, error) {
		old, ok := w.pods[c.Pod.Name]
		if !ok || old.UID != c.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		p := old.DeepCopy()
		if adopt {
			p.OwnerReferences = slices.DeleteFunc(p.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == c.OwnerReference.UID })
			p.OwnerReferences = append(p.OwnerReferences, c.OwnerReference)
			if !hasFinalizer(p, c.Finalizer) {
				p.Finalizers = append(p.Finalizers, c.Finalizer)
			}
		} else {
			p.OwnerReferences = slices.DeleteFunc(p.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == c.OwnerReference.UID })
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == c.Finalizer })
		}
		w.storePod(p)
		return text, nil
	}}
}

func (w *World) deleteStep(del jobsync.PodDeletion, notDone func()) step {
	text := "delete " + del.Pod.Name
	if del.RemoveFinalizer {
		text += " (finalizer removed first)"
	}
	text += ": " + del.Reason
	return step{kind: "delete", text: text, notDone: notDone, do: func() (string, error) {
		old, ok := w.pods[del.Pod.Name]
		if !ok || old.UID != del.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		p := old.DeepCopy()
		if del.RemoveFinalizer {
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == w.finalizer() })
		}
		if p.DeletionTimestamp == nil {
			now := metav1.NewTime(w.now)
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &now, ptr(int64(30))
		}
		w.storePod(p)
		return text, nil
	}}
}

func (w *World) createStep(c jobsync.PodCreation, notDone func()) step {
	what := func(name string) string {
		s := "create " + name
		if c.CompletionIndex != nil {
			s += fmt.Sprintf(" index=%d", *c.CompletionIndex)
		}
		for _, a := range []struct{ key, label string }{
			{batchv1.JobIndexFailureCountAnnotation, "failure-count"},
			{batchv1.JobIndexIgnoredFailureCountAnnotation, "ignored-failure-count"},
		} {
			if v, ok := c.Pod.Annotations[a.key]; ok && v != "0" {
				s += " " + a.label + "=" + v
			}
		}
		return s + ": " + c.Reason
	}
	return step{kind: "create", text: what(c.Pod.GenerateName + "*"), notDone: notDone, do: func() (string, error) {
		p := c.Pod.DeepCopy()
		p.Name = w.generateName(p.GenerateName)
		p.UID = types.UID("uid-" + p.Name)
		p.CreationTimestamp = metav1.NewTime(w.now)
		p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		w.storePod(p)
		return what(p.Name), nil
	}}
}

// generateName gives a generateName prefix its next free name: the prefix
// followed by a, b, ..., z, ba, bb, ...
func (w *World) generateName(prefix string) string {
	for {
		n := w.generated[prefix]
		w.generated[prefix]++
		suffix := ""
		for {
			suffix = string(rune('a'+n%26)) + suffix
			n /= 26
			if n == 0 {
				break
			}
		}
		name := prefix + suffix
		if _, taken := w.pods[name]; !taken {
			if _, seen := w.viewPods[name]; !seen {
				return name
			}
		}
	}
}

func (w *World) finalizerStep(r jobsync.FinalizerRemoval, notDone func()) step {
	text := fmt.Sprintf("remove finalizer %s: %s", r.Pod.Name, r.Reason)
	return step{kind: "finalizer", text: text, notDone: notDone, do: func() (string, error) {
		old, ok := w.pods[r.Pod.Name]
		if !ok || old.UID != r.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		if hasFinalizer(old, w.finalizer()) {
			p := old.DeepCopy()
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == w.finalizer() })
			w.storePod(p)
		}
		return text, nil
	}}
}

// statusStep writes a status with the resourceVersion of the Job the sync
// read (then of its own last write): a Job changed meanwhile is a
// conflict, as for upstream's UpdateStatus.
func (w *World) statusStep(kind, label string, st *batchv1.JobStatus, rv *string, uids map[types.UID]string, written *bool, notDone func()) step {
	text := label + ": " + describeStatus(st, uids)
	for _, c := range describeConditions(st.Conditions) {
		text += "\n  " + c
	}
	return step{kind: kind, text: text, notDone: notDone, do: func() (string, error) {
		if w.job.ResourceVersion != *rv {
			return text, errors.New("conflict: the Job changed since the informer saw it")
		}
		j := w.job.DeepCopy()
		j.Status = *st.DeepCopy()
		j.ResourceVersion = w.nextRV()
		w.job = j
		*rv = j.ResourceVersion
		*written = true
		return text, nil
	}}
}
