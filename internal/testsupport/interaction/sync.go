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
	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// A sync is Reconcile on the informer view, then the plan carried out
// against the API server step by step as the library lists the steps
// (jobsync.Plan.Steps), as a controller built on jobsync does it:
//
//	sync                     every call succeeds
//	sync fail=create         the first creation fails
//	sync fail=create#2       the second creation fails
//
// Calls are named release, adopt, delete, create, interim, finalizer (a
// finalizer removal) and status. A failed creation or deletion does not
// stop the plan: creations go in slow-start batches (1, 2, 4, ...) and
// none is sent after a batch with a failure, and the rest of the plan is
// what jobsync.Resume decides for the calls that failed. Any other failure
// stops the plan (after the finalizer step, whose calls are all sent). The
// controller then keeps the memory jobsync.Advance returns, and records
// each step's events once the step is over.

// step is one API call of a plan.
type step struct {
	kind string
	do   func() (string, error) // carries the call out; says what it did
	text string                 // what the call would do, for calls not made
	// pod is the pod the call is about, for the progress.
	pod  types.UID
	gone func() bool // for a deletion: the pod is already gone
	// removeFinalizer says a deletion patches the finalizer first.
	removeFinalizer bool
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
	c := carrier{w: w, out: out, rv: snap.Job.ResourceVersion, uids: w.uidNames(), failKind: failKind, failNth: failNth, seen: map[string]int{}}
	for _, e := range plan.EventsAtOnce() {
		out.add("event %s %s: %s", e.Type, e.Reason, e.Message)
	}
	steps := plan.Steps()
	for len(steps) > 0 && c.progress.Stopped == "" {
		st := steps[0]
		steps = steps[1:]
		c.carry(plan, st.Kind)
		if st.Kind == jobsync.StepPods && !c.progress.Pods.None() {
			if plan, err = jobsync.Resume(snap, w.opts, plan, c.progress.Pods); err != nil {
				return fmt.Errorf("Resume: %w", err)
			}
			out.add("  the rest of the plan is decided again for the calls that failed")
			steps = plan.StepsAfter(jobsync.StepPods)
			st.Events = eventsOfStep(plan, jobsync.StepPods)
		}
		if c.progress.Stopped != "" && st.Kind != jobsync.StepFinalizers {
			steps = append([]jobsync.Step{st}, steps...) // its events are not recorded
			break
		}
		for _, e := range st.Events {
			out.add("event %s %s: %s", e.Type, e.Reason, e.Message)
		}
	}
	for _, st := range steps {
		for _, cl := range c.calls(plan, st.Kind) {
			if st.Kind != c.progress.Stopped || !c.made[cl.text] {
				out.add("not done: %s", cl.text)
			}
		}
		for _, e := range st.Events {
			out.add("not recorded: event %s %s: %s", e.Type, e.Reason, e.Message)
		}
	}
	if failKind != "" && c.seen[failKind] < failNth {
		return fmt.Errorf("fail=%s#%d: the plan has only %d %s calls", failKind, failNth, c.seen[failKind], failKind)
	}
	if len(plan.Steps()) == 0 && plan.Skipped == "" {
		out.add("nothing to do")
	}
	if plan.RequeueAfter > 0 {
		out.add("requeue after %s", plan.RequeueAfter)
	}
	for _, n := range plan.Notes {
		out.add("note: %s", n)
	}
	mem := jobsync.Advance(snap, plan, c.progress)
	w.exp, w.backoff = mem.Expectations, mem.Backoff
	out.add("memory: %s", describeMemory(w.exp, w.backoff, w.uidNames()))
	return nil
}

// eventsOfStep returns the events plan records once its step k is over.
func eventsOfStep(plan jobsync.Plan, k jobsync.StepKind) []jobsync.Event {
	for _, s := range plan.Steps() {
		if s.Kind == k {
			return s.Events
		}
	}
	return nil
}

// carrier carries the calls of a plan out, notes what failed in the
// progress, and injects the failure the directive asks for.
type carrier struct {
	w                 *World
	out               *lines
	rv                string
	uids              map[types.UID]string
	failKind          string
	failNth           int
	seen              map[string]int
	made              map[string]bool // texts of the calls made in the step that stopped
	progress          jobsync.Progress
	interim, finished bool
}

// calls returns the calls of plan's step k.
func (c *carrier) calls(plan jobsync.Plan, k jobsync.StepKind) []step {
	w := c.w
	var calls []step
	switch k {
	case jobsync.StepClaims:
		for _, cl := range plan.Releases {
			calls = append(calls, w.claimStep("release", cl, false))
		}
		for _, cl := range plan.Adoptions {
			calls = append(calls, w.claimStep("adopt", cl, true))
		}
	case jobsync.StepPods:
		for _, del := range plan.Deletions {
			calls = append(calls, w.deleteStep(del))
		}
		for _, cr := range plan.Creations {
			calls = append(calls, w.createStep(cr))
		}
	case jobsync.StepInterimStatus:
		calls = append(calls, w.statusStep("interim", "write interim status", plan.InterimStatus, &c.rv, c.uids, &c.interim))
	case jobsync.StepFinalizers:
		for _, r := range plan.FinalizerRemovals {
			calls = append(calls, w.finalizerStep(r))
		}
	case jobsync.StepStatus:
		calls = append(calls, w.statusStep("status", "write status", plan.Status, &c.rv, c.uids, &c.finished))
	}
	return calls
}

// send makes one call, or fails it as the directive asks.
func (c *carrier) send(cl step) error {
	c.seen[cl.kind]++
	text, err := cl.text, errInjected
	if cl.kind != c.failKind || c.seen[cl.kind] != c.failNth {
		text, err = cl.do()
	}
	c.out.add("%s", text)
	if err != nil {
		c.out.add("  => %v", err)
	}
	return err
}

// carry carries out the calls of plan's step k.
func (c *carrier) carry(plan jobsync.Plan, k jobsync.StepKind) {
	calls := c.calls(plan, k)
	c.made = map[string]bool{}
	creations, batchEnd, batch, createFailed := 0, 1, 1, false
	for _, cl := range calls {
		if cl.kind == "create" {
			if creations == batchEnd {
				if createFailed {
					c.out.add("not sent (slow start): %s", cl.text)
					c.progress.Pods.Creations++
					continue
				}
				batch *= 2
				batchEnd += batch
			}
			creations++
		}
		gone := cl.gone != nil && cl.gone()
		err := c.send(cl)
		c.made[cl.text] = true
		switch {
		case cl.kind == "create" && err != nil:
			c.progress.Pods.Creations++
			createFailed = true
		case cl.kind == "delete" && (err != nil || gone):
			c.progress.Pods.Deletions = append(c.progress.Pods.Deletions, jobsync.DeletionFailure{Pod: cl.pod, Finalizer: err != nil && cl.removeFinalizer, Gone: gone})
		case cl.kind == "finalizer" && err != nil:
			c.progress.FailedRemovals = append(c.progress.FailedRemovals, cl.pod)
		case err != nil:
			c.progress.Stopped = k
			c.out.add("  nothing after it is done")
			return
		}
	}
	if len(c.progress.FailedRemovals) > 0 {
		// The final status assumes every removal succeeded.
		c.progress.Stopped = jobsync.StepStatus
		c.out.add("  a removal failed: the final status is not written")
	}
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
	return step{kind: kind, text: text, pod: c.Pod.UID, do: func() (string, error) {
		old, ok := w.pods[c.Pod.Name]
		if !ok || old.UID != c.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		p, err := apirules.ApplyClaim(old, c, adopt)
		if err != nil {
			return text, err
		}
		w.storePod(p)
		return text, nil
	}}
}

func (w *World) deleteStep(del jobsync.PodDeletion) step {
	text := "delete " + del.Pod.Name
	if del.RemoveFinalizer {
		text += " (finalizer removed first)"
	}
	text += ": " + del.Reason
	gone := func() bool {
		old, ok := w.pods[del.Pod.Name]
		return !ok || old.UID != del.Pod.UID
	}
	return step{kind: "delete", text: text, pod: del.Pod.UID, gone: gone, removeFinalizer: del.RemoveFinalizer, do: func() (string, error) {
		old, ok := w.pods[del.Pod.Name]
		if !ok || old.UID != del.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		p := old.DeepCopy()
		if del.RemoveFinalizer {
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == w.finalizer() })
		}
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, nil, w.now)
		w.storePod(p)
		return text, nil
	}}
}

func (w *World) createStep(c jobsync.PodCreation) step {
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
	return step{kind: "create", text: what(c.Pod.GenerateName + "*"), do: func() (string, error) {
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

func (w *World) finalizerStep(r jobsync.FinalizerRemoval) step {
	text := fmt.Sprintf("remove finalizer %s: %s", r.Pod.Name, r.Reason)
	return step{kind: "finalizer", text: text, pod: r.Pod.UID, do: func() (string, error) {
		old, ok := w.pods[r.Pod.Name]
		if !ok || old.UID != r.Pod.UID {
			return text + " (the pod is gone)", nil
		}
		if podlife.HasFinalizer(old, w.finalizer()) {
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
func (w *World) statusStep(kind, label string, st *batchv1.JobStatus, rv *string, uids map[types.UID]string, written *bool) step {
	text := label + ": " + describeStatus(st, uids)
	for _, c := range describeConditions(st.Conditions) {
		text += "\n  " + c
	}
	return step{kind: kind, text: text, do: func() (string, error) {
		if w.job.ResourceVersion != *rv {
			return text, errors.New("conflict: the Job changed since the informer saw it")
		}
		if errs := apirules.ValidateStatusUpdate(w.job, st); len(errs) > 0 {
			return text, fmt.Errorf("refused by the API server: %s", strings.Join(errs, "; "))
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
