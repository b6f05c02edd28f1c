// Package backoff computes the pod-recreation backoff of a Job: after pods
// fail, replacements are held back for a delay that starts at a base (10s
// upstream) and doubles with each failure since the last success, up to a
// cap (10m in upstream's code; the Jobs documentation says six minutes, and
// the code is what this package follows).
package backoff

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Record is the backoff state remembered for one Job between syncs. The
// zero value means no failure since the last success.
type Record struct {
	// FailuresAfterLastSuccess counts the pod failures that finished after
	// the most recent pod success.
	FailuresAfterLastSuccess int32 `json:"failuresAfterLastSuccess,omitempty"`
	// LastFailureTime is when the most recent counted failure finished.
	LastFailureTime *time.Time `json:"lastFailureTime,omitempty"`
}

// Update returns the record after the newly finished pods of one sync:
// succeeded and failed hold the pods that finished since the record was
// last updated. Neither slice is modified.
//
// A success resets the count; failures that finished after the latest
// success (strictly later) are counted again from zero, and the latest of
// them sets LastFailureTime. Without a success, every new failure adds one
// and the latest failure sets LastFailureTime.
//
// Successes without any new failure give the empty record whatever their
// finish times and whatever r held, as upstream's newBackoffRecord does, so
// no finish time is read then: a long Job finishes hundreds of pods a sync,
// and this is the common case.
func (r Record) Update(succeeded, failed []*corev1.Pod) Record {
	if len(failed) == 0 {
		if len(succeeded) == 0 {
			return r
		}
		return Record{}
	}
	if len(succeeded) == 0 {
		latest := FinishTime(failed[0])
		for _, p := range failed[1:] {
			if t := FinishTime(p); t.After(latest) {
				latest = t
			}
		}
		return Record{
			FailuresAfterLastSuccess: r.FailuresAfterLastSuccess + int32(len(failed)),
			LastFailureTime:          &latest,
		}
	}
	lastSuccess := FinishTime(succeeded[0])
	for _, p := range succeeded[1:] {
		if t := FinishTime(p); t.After(lastSuccess) {
			lastSuccess = t
		}
	}
	var next Record
	for _, p := range failed {
		t := FinishTime(p)
		if !t.After(lastSuccess) {
			continue
		}
		next.FailuresAfterLastSuccess++
		if next.LastFailureTime == nil || t.After(*next.LastFailureTime) {
			next.LastFailureTime = &t
		}
	}
	return next
}

// Remaining is how long pod creation must still wait at now, given base and
// max delays. It is zero when no failure is recorded or the delay has run out.
func (r Record) Remaining(now time.Time, base, max time.Duration) time.Duration {
	if r.LastFailureTime == nil {
		return 0
	}
	return RemainingFor(r.FailuresAfterLastSuccess, *r.LastFailureTime, now, base, max)
}

// Delay is the backoff owed after failures consecutive failures: zero for
// none, base for one, doubling after that and never more than max. A
// negative count, which only int32 overflow of a count produces, owes base,
// as upstream's does (its loop never runs and only zero is special).
func Delay(failures int32, base, max time.Duration) time.Duration {
	if failures == 0 {
		return 0
	}
	d := base
	for i := int32(1); i < failures; i++ {
		d *= 2
		if d >= max {
			return max
		}
		if d == 0 {
			// A zero base, or doubling that overflowed to zero, stays zero
			// (and below max, or we had returned): stop instead of looping
			// up to 2^31 times.
			break
		}
	}
	return d
}

// RemainingFor is the part of Delay(failures) not yet elapsed at now when the
// last failure finished at last. A failure time after now (clock skew
// between node and controller) adds the skew to the wait, as upstream's does.
func RemainingFor(failures int32, last, now time.Time, base, max time.Duration) time.Duration {
	if failures == 0 {
		return 0
	}
	d := Delay(failures, base, max)
	elapsed := now.Sub(last)
	if d < elapsed {
		return 0
	}
	return d - elapsed
}

// FinishTime is when a pod finished, found the way upstream finds it:
//  1. when every regular container (and every restartable init container,
//     that is, sidecar) has terminated with a finish time, the latest of them;
//  2. else the last transition of a Ready=False condition, if set;
//  3. else the deletion timestamp less the deletion grace period;
//  4. else the creation timestamp.
func FinishTime(p *corev1.Pod) time.Time {
	if t, ok := containersFinishTime(p); ok {
		return t
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			if c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
				return c.LastTransitionTime.Time
			}
			break
		}
	}
	if p.DeletionTimestamp != nil {
		var grace int64
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return p.CreationTimestamp.Time
}

// containersFinishTime mirrors upstream's two-step lookup: the latest finish
// time of the regular containers (none if any of them has not terminated
// with a finish time, or if there are none), then that time extended over
// the sidecars, where a sidecar without a finish time voids the result. So a
// pod whose regular containers still run but whose sidecars all finished
// reports the sidecars' time, as upstream does.
func containersFinishTime(p *corev1.Pod) (time.Time, bool) {
	latest, ok := latestFinish(time.Time{}, false, p.Status.ContainerStatuses, nil)
	return latestFinish(latest, ok, p.Status.InitContainerStatuses, func(name string) bool { return isSidecar(p, name) })
}

// latestFinish extends (prev, havePrev) with the finish times of statuses
// accepted by keep (all when keep is nil). Any accepted status without a
// finish time makes the whole result absent.
func latestFinish(prev time.Time, havePrev bool, statuses []corev1.ContainerStatus, keep func(string) bool) (time.Time, bool) {
	latest, found := prev, havePrev
	for _, s := range statuses {
		if keep != nil && !keep(s.Name) {
			continue
		}
		term := s.State.Terminated
		if term == nil || term.FinishedAt.IsZero() {
			return time.Time{}, false
		}
		if !found || latest.Before(term.FinishedAt.Time) {
			latest = term.FinishedAt.Time
		}
		found = true
	}
	return latest, found
}

// isSidecar reports whether any init container called name restarts
// Always. Names are unique in a valid pod; where they are not, any match
// counts, as in upstream's name set.
func isSidecar(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name == name && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			return true
		}
	}
	return false
}
