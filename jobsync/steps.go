package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// StepKind names a step of a plan. The steps come in this order; the calls
// of one step may run concurrently.
type StepKind string

// The steps of a plan, in the order they are carried out.
const (
	// StepClaims sends the Releases and then the Adoptions. A failed call
	// stops the plan (upstream lists the Job's pods through its claims and
	// fails the sync when one fails).
	StepClaims StepKind = "claims"
	// StepPods carries out the Deletions or the Creations (never both).
	// Failed calls do not stop the plan: the rest is decided again by
	// Resume with those calls failed, carried out, and the failure
	// reported afterwards, as upstream keeps its pod-management error until
	// the status is written.
	StepPods StepKind = "pods"
	// StepInterimStatus writes the InterimStatus. A failure stops the plan.
	StepInterimStatus StepKind = "interim status"
	// StepFinalizers removes the FinalizerRemovals. A failed call stops the
	// plan once the step is over: the final Status assumes every removal
	// succeeded.
	StepFinalizers StepKind = "finalizers"
	// StepStatus writes the final Status. A failure stops the plan.
	StepStatus StepKind = "status"
)

// stepOrder returns the order of the steps of every plan (a value, not a
// variable: the library keeps no mutable globals).
func stepOrder() [5]StepKind {
	return [...]StepKind{StepClaims, StepPods, StepInterimStatus, StepFinalizers, StepStatus}
}

// Step is one step of a plan: its kind, how many API calls it makes and the
// events recorded once it is over.
type Step struct {
	Kind StepKind
	// Calls is the number of API calls of the step: one per claim, per
	// object, pod deletion (not counting the finalizer patch before it) or
	// creation, per finalizer removal, and one per status write.
	Calls int
	// Events are the plan's events recorded once the step is over (for
	// StepPods, whatever its calls did; for the other steps, only when the
	// step did not stop the plan), in the plan's order. A step may have
	// events and no calls: a Job suspended with no active pod records
	// Suspended where its deletions would have been.
	Events []Event
}

// Steps returns the steps of the plan that make calls or record events, in
// order. A skipped plan has no steps; its events are recorded at once
// (EventsAtOnce).
//
// Steps and Advance are the caller's half of the plan contract, in the
// manner of raft's Ready and Advance: carry each step out in turn, stop
// where the step's kind says a failure stops the plan, call Resume after a
// pod step with failed calls and go on with the steps of the plan it
// returns, and keep the memory Advance returns.
func (p Plan) Steps() []Step {
	calls := map[StepKind]int{
		StepClaims:        len(p.Releases) + len(p.Adoptions),
		StepPods:          len(p.Deletions) + len(p.Creations),
		StepInterimStatus: boolCount(p.InterimStatus != nil),
		StepFinalizers:    len(p.FinalizerRemovals),
		StepStatus:        boolCount(p.Status != nil),
	}
	events := map[StepKind][]Event{}
	for i, k := range p.eventSteps() {
		events[k] = append(events[k], p.Events[i])
	}
	var steps []Step
	for _, k := range stepOrder() {
		if calls[k] > 0 || len(events[k]) > 0 {
			steps = append(steps, Step{Kind: k, Calls: calls[k], Events: events[k]})
		}
	}
	return steps
}

// EventsAtOnce returns the events recorded before any step: those of a
// skipped plan.
func (p Plan) EventsAtOnce() []Event {
	if p.Skipped == "" {
		return nil
	}
	return p.Events
}

// eventSteps returns the step after which each of the plan's events is
// recorded ("" for at once), read from where each event comes from in the
// plan, as upstream records it:
//
//   - a skipped plan's events (an unknown completion mode), at once;
//   - the events of a plan whose final status finishes the Job (Completed,
//     TooManySucceededPods, the failure reason), once that status is
//     written;
//   - any other (Suspended, Resumed: decided after the pod calls, whatever
//     they did), once the pod step is over.
//
// A plan never records Suspended or Resumed and finishes the Job at once:
// upstream updates the Suspended condition only when the Job is not
// finishing. TestEventSteps checks these origins against the reasons.
func (p Plan) eventSteps() []StepKind {
	steps := make([]StepKind, len(p.Events))
	if p.Skipped != "" {
		return steps
	}
	rest := StepPods
	if finishes(p.Status) {
		rest = StepStatus
	}
	for i := range steps {
		steps[i] = rest
	}
	return steps
}

// finishes reports whether st carries a true Complete or Failed condition.
func finishes(st *batchv1.JobStatus) bool {
	if st == nil {
		return false
	}
	for _, c := range st.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// Stops reports whether a failure in a step of kind k stops the plan
// there. Only the pod step's failures do not.
func (k StepKind) Stops() bool { return k != StepPods }

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// StepsAfter returns the steps of the plan that come after the step of
// kind k: after a pod step with failed calls, the steps of the plan Resume
// returned that are still to be carried out.
func (p Plan) StepsAfter(k StepKind) []Step {
	steps := p.Steps()
	for i, s := range steps {
		if stepIndex(s.Kind) > stepIndex(k) {
			return steps[i:]
		}
	}
	return nil
}
