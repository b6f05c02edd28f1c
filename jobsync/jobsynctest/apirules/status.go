package apirules

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/indexes"
)

// MsgNoStartTime is the rejection of a terminal condition without startTime.
const MsgNoStartTime = "startTime required for a finished Job"

// ValidateStatusUpdate checks a status write to the Job old as the v1.36 API
// server's status validation does for the built-in controller's writes,
// limited to the rules a controller can break (statusRules), and returns
// what each broken rule says, in the rules' order.
func ValidateStatusUpdate(old *batchv1.Job, st *batchv1.JobStatus) []string {
	u := &statusUpdate{old: &old.Status, new: st, spec: &old.Spec}
	u.indexed = u.spec.CompletionMode != nil && *u.spec.CompletionMode == batchv1.IndexedCompletion
	var errs []string
	for _, r := range statusRules {
		errs = append(errs, r.check(u)...)
	}
	return errs
}

// statusRule is one rule of the API server's Job status validation. Each
// applies, as upstream's do, only when a field it reads changed (unless it
// says otherwise); check returns its violations, none when it holds.
type statusRule struct {
	name  string
	check func(u *statusUpdate) []string
}

// statusUpdate is one status write: the stored status, the written one and
// the Job's spec.
type statusUpdate struct {
	old, new *batchv1.JobStatus
	spec     *batchv1.JobSpec
	indexed  bool
}

// statusRules are the rules, in the API server's order.
var statusRules = []statusRule{
	{"counters are not negative", func(u *statusUpdate) []string {
		st := u.new
		if st.Active < 0 || st.Succeeded < 0 || st.Failed < 0 ||
			(st.Ready != nil && *st.Ready < 0) || (st.Terminating != nil && *st.Terminating < 0) {
			return []string{"counters must not be negative"}
		}
		return nil
	}},
	{"uncounted UIDs are set and unique", func(u *statusUpdate) []string {
		if u.new.UncountedTerminatedPods == nil {
			return nil
		}
		var errs []string
		seen := map[types.UID]bool{}
		for _, list := range [][]types.UID{u.new.UncountedTerminatedPods.Succeeded, u.new.UncountedTerminatedPods.Failed} {
			for _, uid := range list {
				if uid == "" {
					errs = append(errs, "uncountedTerminatedPods: empty UID")
				} else if seen[uid] {
					errs = append(errs, fmt.Sprintf("uncountedTerminatedPods: duplicate UID %s", uid))
				}
				seen[uid] = true
			}
		}
		return errs
	}},
	{"terminal and interim conditions stay", func(u *statusUpdate) []string {
		var errs []string
		for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet} {
			if isTrue(u.old, t) && !isTrue(u.new, t) {
				errs = append(errs, fmt.Sprintf("cannot disable the %s=True condition", t))
			}
		}
		return errs
	}},
	{"failed does not decrease", func(u *statusUpdate) []string {
		return violated(u.new.Failed < u.old.Failed, "cannot decrease the failed counter (%d to %d)", u.old.Failed, u.new.Failed)
	}},
	{"succeeded does not decrease (but for elastic Indexed Jobs)", func(u *statusUpdate) []string {
		spec := u.spec
		elastic := u.indexed && spec.Completions != nil && spec.Parallelism != nil && *spec.Completions == *spec.Parallelism
		return violated(!elastic && u.new.Succeeded < u.old.Succeeded, "cannot decrease the succeeded counter (%d to %d)", u.old.Succeeded, u.new.Succeeded)
	}},
	{"completionTime is immutable", func(u *statusUpdate) []string {
		o, n := u.old.CompletionTime, u.new.CompletionTime
		return violated(o != nil && n != nil && !o.Equal(n), "completionTime is immutable")
	}},
	{"startTime is immutable while running", func(u *statusUpdate) []string {
		resuming := isTrue(u.old, batchv1.JobSuspended) && isFalse(u.new, batchv1.JobSuspended)
		return violated(u.startTimeChanged() && !resuming && u.old.StartTime != nil && !(u.spec.Suspend != nil && *u.spec.Suspend),
			"startTime is immutable for an unsuspended Job once set")
	}},
	{"not both Complete and Failed", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobComplete) || u.changed(batchv1.JobFailed)) && isTrue(u.new, batchv1.JobComplete) && isTrue(u.new, batchv1.JobFailed),
			"cannot set Complete=True and Failed=True")
	}},
	{"not both Complete and FailureTarget", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobComplete) || u.changed(batchv1.JobFailureTarget)) && isTrue(u.new, batchv1.JobComplete) && isTrue(u.new, batchv1.JobFailureTarget),
			"cannot set Complete=True and FailureTarget=True")
	}},
	{"completionTime only with Complete", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobComplete) || u.completionTimeChanged()) && u.new.CompletionTime != nil && !isTrue(u.new, batchv1.JobComplete),
			"completionTime without Complete=True")
	}},
	{"Complete only with completionTime", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobComplete) || u.completionTimeChanged()) && u.new.CompletionTime == nil && isTrue(u.new, batchv1.JobComplete),
			"Complete=True without completionTime")
	}},
	{"completionTime not before startTime", func(u *statusUpdate) []string {
		st := u.new
		return violated(st.StartTime != nil && st.CompletionTime != nil && st.CompletionTime.Before(st.StartTime) &&
			(u.startTimeChanged() || u.completionTimeChanged()), "completionTime before startTime")
	}},
	{"Failed only after FailureTarget", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobFailed) || u.failedIndexesChanged()) && isTrue(u.new, batchv1.JobFailed) && !isTrue(u.new, batchv1.JobFailureTarget),
			"Failed=True without FailureTarget=True")
	}},
	{"Complete only after SuccessCriteriaMet", func(u *statusUpdate) []string {
		return violated((u.changed(batchv1.JobComplete) || u.changed(batchv1.JobSuccessCriteriaMet)) && isTrue(u.new, batchv1.JobComplete) && !isTrue(u.new, batchv1.JobSuccessCriteriaMet),
			"Complete=True without SuccessCriteriaMet=True")
	}},
	{"no active pods once finished", func(u *statusUpdate) []string {
		return violated((u.finishedChanged() || u.old.Active != u.new.Active) && statusFinished(u.new) && u.new.Active > 0,
			"active=%d for a finished Job", u.new.Active)
	}},
	{"a finished Job has a startTime", func(u *statusUpdate) []string {
		spec := u.spec
		suspendedWithoutWork := spec.Suspend != nil && *spec.Suspend && spec.Completions != nil && *spec.Completions == 0
		return violated(u.finishedChanged() && statusFinished(u.new) && u.new.StartTime == nil && !suspendedWithoutWork, MsgNoStartTime)
	}},
	{"nothing uncounted once finished (checked on every write)", func(u *statusUpdate) []string {
		p := u.new.UncountedTerminatedPods
		return violated(statusFinished(u.new) && p != nil && len(p.Succeeded)+len(p.Failed) > 0, "uncountedTerminatedPods must be empty for a finished Job")
	}},
	{"nothing terminating once finished", func(u *statusUpdate) []string {
		t := u.new.Terminating
		changed := u.finishedChanged() || !equalPtr(u.old.Terminating, t)
		if changed && statusFinished(u.new) && t != nil && *t > 0 {
			return []string{fmt.Sprintf("terminating=%d for a finished Job", *t)}
		}
		return nil
	}},
	{"ready not above active", func(u *statusUpdate) []string {
		r := u.new.Ready
		changed := !equalPtr(u.old.Ready, r) || u.old.Active != u.new.Active
		if changed && r != nil && *r > u.new.Active {
			return []string{fmt.Sprintf("ready=%d is more than active=%d", *r, u.new.Active)}
		}
		return nil
	}},
	{"not both SuccessCriteriaMet and Failed (checked on every write)", func(u *statusUpdate) []string {
		return violated(isTrue(u.new, batchv1.JobSuccessCriteriaMet) && isTrue(u.new, batchv1.JobFailed), "cannot set SuccessCriteriaMet=True and Failed=True")
	}},
	{"not both SuccessCriteriaMet and FailureTarget (checked on every write)", func(u *statusUpdate) []string {
		return violated(isTrue(u.new, batchv1.JobSuccessCriteriaMet) && isTrue(u.new, batchv1.JobFailureTarget), "cannot set SuccessCriteriaMet=True and FailureTarget=True")
	}},
	{"a success policy completes through SuccessCriteriaMet (checked on every write)", func(u *statusUpdate) []string {
		return violated(u.spec.SuccessPolicy != nil && !isTrue(u.new, batchv1.JobSuccessCriteriaMet) && isTrue(u.new, batchv1.JobComplete),
			"Complete=True for a Job with a successPolicy needs SuccessCriteriaMet=True")
	}},
	{"no SuccessCriteriaMet added to a Complete Job", func(u *statusUpdate) []string {
		return violated(isTrue(u.old, batchv1.JobComplete) && !isTrue(u.old, batchv1.JobSuccessCriteriaMet) && isTrue(u.new, batchv1.JobSuccessCriteriaMet),
			"cannot add SuccessCriteriaMet=True to a Job already Complete")
	}},
	{"completedIndexes well formed, for Indexed Jobs only", func(u *statusUpdate) []string {
		if u.old.CompletedIndexes == u.new.CompletedIndexes {
			return nil
		}
		var errs []string
		if !u.indexed && u.new.CompletedIndexes != "" {
			errs = append(errs, "completedIndexes for a NonIndexed Job")
		}
		if u.indexed && u.spec.Completions != nil {
			if _, err := indexes.Parse(u.new.CompletedIndexes, int(*u.spec.Completions)); err != nil {
				errs = append(errs, fmt.Sprintf("completedIndexes %q: %v", u.new.CompletedIndexes, err))
			}
		}
		return errs
	}},
	{"failedIndexes well formed, with backoffLimitPerIndex only", func(u *statusUpdate) []string {
		f := u.new.FailedIndexes
		if !u.failedIndexesChanged() || f == nil {
			return nil
		}
		if u.spec.BackoffLimitPerIndex == nil {
			return []string{"failedIndexes without backoffLimitPerIndex"}
		}
		if u.spec.Completions != nil {
			if _, err := indexes.Parse(*f, int(*u.spec.Completions)); err != nil {
				return []string{fmt.Sprintf("failedIndexes %q: %v", *f, err)}
			}
		}
		return nil
	}},
	{"no index both completed and failed", func(u *statusUpdate) []string {
		st := u.new
		if !(u.failedIndexesChanged() || u.old.CompletedIndexes != st.CompletedIndexes) || st.FailedIndexes == nil || u.spec.Completions == nil {
			return nil
		}
		completed, err1 := indexes.Parse(st.CompletedIndexes, int(*u.spec.Completions))
		failed, err2 := indexes.Parse(*st.FailedIndexes, int(*u.spec.Completions))
		if err1 != nil || err2 != nil {
			return nil
		}
		var errs []string
		for _, iv := range failed {
			for ix := iv.First; ix <= iv.Last; ix++ {
				if completed.Has(ix) {
					errs = append(errs, fmt.Sprintf("index %d is both completed and failed", ix))
					break
				}
			}
		}
		return errs
	}},
}

// violated returns the message when broken is true, and nothing otherwise.
func violated(broken bool, format string, args ...any) []string {
	if !broken {
		return nil
	}
	return []string{fmt.Sprintf(format, args...)}
}

func (u *statusUpdate) changed(t batchv1.JobConditionType) bool {
	return isTrue(u.old, t) != isTrue(u.new, t)
}

func (u *statusUpdate) finishedChanged() bool { return statusFinished(u.old) != statusFinished(u.new) }

func (u *statusUpdate) startTimeChanged() bool { return !timeEqual(u.old.StartTime, u.new.StartTime) }

func (u *statusUpdate) completionTimeChanged() bool {
	return !timeEqual(u.old.CompletionTime, u.new.CompletionTime)
}

func (u *statusUpdate) failedIndexesChanged() bool {
	return !equalPtr(u.old.FailedIndexes, u.new.FailedIndexes)
}

// isTrue reports whether the status has condition t with status True.
func isTrue(s *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// isFalse reports whether the first condition t of the status is False.
func isFalse(s *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionFalse
		}
	}
	return false
}

// statusFinished reports whether the status has Complete=True or Failed=True.
func statusFinished(s *batchv1.JobStatus) bool {
	return isTrue(s, batchv1.JobComplete) || isTrue(s, batchv1.JobFailed)
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
