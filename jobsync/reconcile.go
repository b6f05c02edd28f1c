package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
)

// Reconcile decides one sync of s.Job as upstream's Job controller would
// and returns the plan. It returns an error, and no plan, for a snapshot it
// cannot decide on (see InputError); it never panics and never modifies s.
func Reconcile(s Snapshot, opts Options) (Plan, error) {
	return reconcile(s, opts, nil)
}

// reconcile is Reconcile with the outcome of the pod step known: failed,
// when not nil, says which deletions and creations did not succeed (see
// Resume), and the pod counts, the completion check and the finishing of a
// Job are decided on what was done.
func reconcile(s Snapshot, opts Options, failed *PodFailures) (Plan, error) {
	if s.Job == nil {
		return Plan{}, inputErr("job", nil, "is nil")
	}
	opts = opts.withDefaults()
	if err := checkOwner(opts.Owner); err != nil {
		return Plan{}, err
	}
	job := s.Job
	// The plan carries the memory forward in copies of its own, so that a
	// caller keeping both the snapshot and the plan may change either (the
	// expectations' set of finalizer removals is immutable: shared as is).
	s.Backoff = copyBackoff(s.Backoff)
	plan := Plan{Expectations: s.Expectations, Backoff: s.Backoff}

	if skipSync(s, opts, &plan) { // skip.go
		return plan, nil
	}
	// The skips read only what upstream reads before its first use of a
	// defaulted field; from here on, those fields must be sound.
	if err := checkJob(job); err != nil { // input.go
		return Plan{}, err
	}
	if s.SettledPods < 0 {
		return Plan{}, inputErr("settledPods", s.SettledPods, "must not be negative")
	}
	state := newSyncState(s, opts) // state.go
	sync := &state

	// The steps, in upstream's order; each takes what it reads and returns
	// what it decides. The scan, the pod step and track return their parts
	// of the plan, assembled here in order; decideFinish returns its note
	// and requeue request, and the suspend step its event.
	census, claimPart, err := sync.scan(s.Pods, s.SettledPods, s.Active, s.Succeeded, s.Expectations.FinalizerRemovals, plan.memory()) // scan.go
	if err != nil {
		return Plan{}, err
	}
	plan.assemble(claimPart)
	// startTime travels from step to step as a value, and reaches the
	// status once the suspend step has had its say.
	start := job.Status.StartTime
	if start == nil && !sync.suspended {
		start = ptrTime(s.Now)
	}
	counts, err := sync.countFinished(&census, s.Backoff) // count.go
	if err != nil {
		return Plan{}, err
	}
	progress := sync.indexProgress(&census) // indexprogress.go
	counts = counts.withIndexes(progress, sync.indexed)
	finish, note, wait := sync.decideFinish(&census, counts, progress, start) // finish.go
	plan.addNote(note)
	plan.requeueAt(wait)

	// The status this sync builds: Reconcile holds it and hands it to the
	// steps that write it, in turn (the suspend step, setPodCounts, track).
	st := newStatus(job) // state.go

	// The pod step's part of the plan comes before the suspend step's
	// event and the tracking step's part.
	var pods podCounts
	var podPart Plan
	suspendChanged := false
	if finish != nil {
		pods, finish, podPart = sync.deleteAllActive(&census, finish, failed, plan.memory()) // manage.go
		plan.assemble(podPart)
	} else {
		pods, podPart = sync.managePods(&census, counts, progress, failed, plan.memory()) // manage.go
		plan.assemble(podPart)
		if sync.completionsReached(pods.active, counts.succeeded) { // finish.go
			finish = newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, msgCompletionsReached, sync.now)
		} else if sync.manages {
			var ev Event
			start, ev, suspendChanged = sync.updateSuspendCondition(st, start) // suspend.go
			plan.addEvent(ev, suspendChanged)
		}
	}
	st.StartTime = start
	needsWrite := setPodCounts(st, pods) || suspendChanged // state.go

	// The write-ahead accounting, the status writes and the terminal
	// condition.
	trackPart, err := sync.track(st, &census, progress, finish, pods.terminating, counts.backoff, needsWrite, plan.memory()) // tracking.go
	if err != nil {
		return Plan{}, err
	}
	plan.assemble(trackPart)
	return plan, nil
}
