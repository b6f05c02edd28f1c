package jobsync

// StepKind names a step of a plan. The steps come in this order; the calls
// of one step may run concurrently.
type StepKind string

// The steps of a plan, in the order they are carried out.
const (
	// StepClaims sends the Releases and then the Adoptions. A failed call
	// stops the plan (upstream lists the Job's pods through its claims and
	// fails the sync when one fails).
	StepClaims StepKind = "claims"
	// StepGang creates the WorkloadCreation and then the PodGroupCreation.
	// A failure stops the plan.
	StepGang StepKind = "gang"
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

// stepOrder is the order of the steps of every plan.
var stepOrder = [...]StepKind{StepClaims, StepGang, StepPods, StepInterimStatus, StepFinalizers, StepStatus}

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
// (Event.After is empty).
//
// Steps and Advance are the caller's half of the plan contract, in the
// manner of raft's Ready and Advance: carry each step out in turn, stop
// where the step's kind says a failure stops the plan, call Resume after a
// pod step with failed calls and go on with the steps of the plan it
// returns, and keep the memory Advance returns.
func (p Plan) Steps() []Step {
	calls := map[StepKind]int{
		StepClaims:        len(p.Releases) + len(p.Adoptions),
		StepGang:          boolCount(p.WorkloadCreation != nil) + boolCount(p.PodGroupCreation != nil),
		StepPods:          len(p.Deletions) + len(p.Creations),
		StepInterimStatus: boolCount(p.InterimStatus != nil),
		StepFinalizers:    len(p.FinalizerRemovals),
		StepStatus:        boolCount(p.Status != nil),
	}
	events := map[StepKind][]Event{}
	for _, e := range p.Events {
		events[e.After] = append(events[e.After], e)
	}
	var steps []Step
	for _, k := range stepOrder {
		if calls[k] > 0 || len(events[k]) > 0 {
			steps = append(steps, Step{Kind: k, Calls: calls[k], Events: events[k]})
		}
	}
	return steps
}

// EventsAtOnce returns the events recorded before any step: those of a
// skipped plan (Event.After empty).
func (p Plan) EventsAtOnce() []Event {
	var out []Event
	for _, e := range p.Events {
		if e.After == "" {
			out = append(out, e)
		}
	}
	return out
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
