package jobsynctest

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/indexes"
)

// msgNoStartTime is the rejection of a terminal condition without startTime.
const msgNoStartTime = "startTime required for a finished Job"

// validateStatusUpdate checks a status write to the Job old as the v1.36 API
// server's status validation does for the built-in controller's writes,
// limited to the rules a controller can break. Each rule applies, as
// upstream's do, only when a field it reads changed.
func validateStatusUpdate(old *batchv1.Job, st *batchv1.JobStatus) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	o := &old.Status
	spec := &old.Spec
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion

	is := func(s *batchv1.JobStatus, t batchv1.JobConditionType) bool {
		for _, c := range s.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	finished := func(s *batchv1.JobStatus) bool {
		return is(s, batchv1.JobComplete) || is(s, batchv1.JobFailed)
	}
	changed := func(t batchv1.JobConditionType) bool { return is(o, t) != is(st, t) }
	finishedChanged := finished(o) != finished(st)

	if st.Active < 0 || st.Succeeded < 0 || st.Failed < 0 ||
		(st.Ready != nil && *st.Ready < 0) || (st.Terminating != nil && *st.Terminating < 0) {
		bad("counters must not be negative")
	}
	if st.UncountedTerminatedPods != nil {
		seen := map[types.UID]bool{}
		for _, list := range [][]types.UID{st.UncountedTerminatedPods.Succeeded, st.UncountedTerminatedPods.Failed} {
			for _, u := range list {
				if u == "" {
					bad("uncountedTerminatedPods: empty UID")
				} else if seen[u] {
					bad("uncountedTerminatedPods: duplicate UID %s", u)
				}
				seen[u] = true
			}
		}
	}
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet} {
		if is(o, t) && !is(st, t) {
			bad("cannot disable the %s=True condition", t)
		}
	}
	if st.Failed < o.Failed {
		bad("cannot decrease the failed counter (%d to %d)", o.Failed, st.Failed)
	}
	elastic := indexed && spec.Completions != nil && spec.Parallelism != nil && *spec.Completions == *spec.Parallelism
	if !elastic && st.Succeeded < o.Succeeded {
		bad("cannot decrease the succeeded counter (%d to %d)", o.Succeeded, st.Succeeded)
	}
	if o.CompletionTime != nil && st.CompletionTime != nil && !o.CompletionTime.Equal(st.CompletionTime) {
		bad("completionTime is immutable")
	}
	resuming := is(o, batchv1.JobSuspended) && condFalse(st, batchv1.JobSuspended)
	startChanged := !timeEqual(o.StartTime, st.StartTime)
	if startChanged && !resuming && o.StartTime != nil && !(spec.Suspend != nil && *spec.Suspend) {
		bad("startTime is immutable for an unsuspended Job once set")
	}
	completeChanged := changed(batchv1.JobComplete)
	if (completeChanged || changed(batchv1.JobFailed)) && is(st, batchv1.JobComplete) && is(st, batchv1.JobFailed) {
		bad("cannot set Complete=True and Failed=True")
	}
	if (completeChanged || changed(batchv1.JobFailureTarget)) && is(st, batchv1.JobComplete) && is(st, batchv1.JobFailureTarget) {
		bad("cannot set Complete=True and FailureTarget=True")
	}
	if (completeChanged || !timeEqual(o.CompletionTime, st.CompletionTime)) && st.CompletionTime != nil && !is(st, batchv1.JobComplete) {
		bad("completionTime without Complete=True")
	}
	if (completeChanged || !timeEqual(o.CompletionTime, st.CompletionTime)) && st.CompletionTime == nil && is(st, batchv1.JobComplete) {
		bad("Complete=True without completionTime")
	}
	if st.StartTime != nil && st.CompletionTime != nil && st.CompletionTime.Before(st.StartTime) &&
		(startChanged || !timeEqual(o.CompletionTime, st.CompletionTime)) {
		bad("completionTime before startTime")
	}
	if (changed(batchv1.JobFailed) || !strPtrEqual(o.FailedIndexes, st.FailedIndexes)) && is(st, batchv1.JobFailed) && !is(st, batchv1.JobFailureTarget) {
		bad("Failed=True without FailureTarget=True")
	}
	if (completeChanged || changed(batchv1.JobSuccessCriteriaMet)) && is(st, batchv1.JobComplete) && !is(st, batchv1.JobSuccessCriteriaMet) {
		bad("Complete=True without SuccessCriteriaMet=True")
	}
	if (finishedChanged || o.Active != st.Active) && finished(st) && st.Active > 0 {
		bad("active=%d for a finished Job", st.Active)
	}
	if finishedChanged && finished(st) && st.StartTime == nil && !(spec.Suspend != nil && *spec.Suspend && spec.Completions != nil && *spec.Completions == 0) {
		bad(msgNoStartTime)
	}
	if u := st.UncountedTerminatedPods; finished(st) && u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		bad("uncountedTerminatedPods must be empty for a finished Job")
	}
	if (finishedChanged || !int32PtrEqual(o.Terminating, st.Terminating)) && finished(st) && st.Terminating != nil && *st.Terminating > 0 {
		bad("terminating=%d for a finished Job", *st.Terminating)
	}
	if (!int32PtrEqual(o.Ready, st.Ready) || o.Active != st.Active) && st.Ready != nil && *st.Ready > st.Active {
		bad("ready=%d is more than active=%d", *st.Ready, st.Active)
	}
	if is(st, batchv1.JobSuccessCriteriaMet) && is(st, batchv1.JobFailed) {
		bad("cannot set SuccessCriteriaMet=True and Failed=True")
	}
	if is(st, batchv1.JobSuccessCriteriaMet) && is(st, batchv1.JobFailureTarget) {
		bad("cannot set SuccessCriteriaMet=True and FailureTarget=True")
	}
	if spec.SuccessPolicy != nil && !is(st, batchv1.JobSuccessCriteriaMet) && is(st, batchv1.JobComplete) {
		bad("Complete=True for a Job with a successPolicy needs SuccessCriteriaMet=True")
	}
	if is(o, batchv1.JobComplete) && !is(o, batchv1.JobSuccessCriteriaMet) && is(st, batchv1.JobSuccessCriteriaMet) {
		bad("cannot add SuccessCriteriaMet=True to a Job already Complete")
	}
	if o.CompletedIndexes != st.CompletedIndexes {
		if !indexed && st.CompletedIndexes != "" {
			bad("completedIndexes for a NonIndexed Job")
		}
		if indexed && spec.Completions != nil {
			if _, err := indexes.Parse(st.CompletedIndexes, int(*spec.Completions)); err != nil {
				bad("completedIndexes %q: %v", st.CompletedIndexes, err)
			}
		}
	}
	failedIdxChanged := !strPtrEqual(o.FailedIndexes, st.FailedIndexes)
	if failedIdxChanged && st.FailedIndexes != nil {
		if spec.BackoffLimitPerIndex == nil {
			bad("failedIndexes without backoffLimitPerIndex")
		} else if spec.Completions != nil {
			if _, err := indexes.Parse(*st.FailedIndexes, int(*spec.Completions)); err != nil {
				bad("failedIndexes %q: %v", *st.FailedIndexes, err)
			}
		}
	}
	if (failedIdxChanged || o.CompletedIndexes != st.CompletedIndexes) && st.FailedIndexes != nil && spec.Completions != nil {
		done, err1 := indexes.Parse(st.CompletedIndexes, int(*spec.Completions))
		failed, err2 := indexes.Parse(*st.FailedIndexes, int(*spec.Completions))
		if err1 == nil && err2 == nil {
			for _, iv := range failed {
				for ix := iv.First; ix <= iv.Last; ix++ {
					if done.Has(ix) {
						bad("index %d is both completed and failed", ix)
						break
					}
				}
			}
		}
	}
	return errs
}

func condFalse(s *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionFalse
		}
	}
	return false
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func strPtrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func int32PtrEqual(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
