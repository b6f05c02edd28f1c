package apirules

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestStatusRules is the specification of the simulator's status
// validation: for each named rule, a write that breaks it and nothing else,
// and the message the rule gives. Every rule of statusRules must have a
// case, so that a rule added without one fails here.
func TestStatusRules(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	later := metav1.NewTime(start.Add(time.Minute))
	cond := func(ty batchv1.JobConditionType, st corev1.ConditionStatus) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ty, Status: st}
	}
	isTrueCond := func(ty batchv1.JobConditionType) batchv1.JobCondition { return cond(ty, corev1.ConditionTrue) }
	int32p := func(v int32) *int32 { return &v }
	strp := func(s string) *string { return &s }
	indexed := batchv1.IndexedCompletion
	// running is a stored Job that runs, with one succeeded and one failed pod.
	running := func() *batchv1.Job {
		return &batchv1.Job{
			Spec: batchv1.JobSpec{Parallelism: int32p(2), Completions: int32p(4), Suspend: new(bool)},
			Status: batchv1.JobStatus{
				StartTime: &start, Active: 2, Ready: int32p(0), Terminating: int32p(0), Succeeded: 1, Failed: 1,
				UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
			},
		}
	}
	indexedJob := func() *batchv1.Job {
		j := running()
		j.Spec.CompletionMode = &indexed
		j.Spec.BackoffLimitPerIndex = int32p(1)
		j.Status.CompletedIndexes = "0"
		return j
	}
	cases := []struct {
		rule  string
		old   *batchv1.Job
		write func(st *batchv1.JobStatus)
		want  []string
	}{
		{"counters are not negative", running(), func(st *batchv1.JobStatus) { st.Ready = int32p(-1) },
			[]string{"counters must not be negative"}},
		{"uncounted UIDs are set and unique", running(), func(st *batchv1.JobStatus) {
			st.UncountedTerminatedPods.Succeeded = []types.UID{"a", ""}
			st.UncountedTerminatedPods.Failed = []types.UID{"a"}
		}, []string{"uncountedTerminatedPods: empty UID", "uncountedTerminatedPods: duplicate UID a"}},
		{"terminal and interim conditions stay", func() *batchv1.Job {
			j := running()
			j.Status.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailureTarget)}
			return j
		}(), func(st *batchv1.JobStatus) { st.Conditions = nil }, []string{"cannot disable the FailureTarget=True condition"}},
		{"failed does not decrease", running(), func(st *batchv1.JobStatus) { st.Failed = 0 },
			[]string{"cannot decrease the failed counter (1 to 0)"}},
		{"succeeded does not decrease (but for elastic Indexed Jobs)", running(), func(st *batchv1.JobStatus) { st.Succeeded = 0 },
			[]string{"cannot decrease the succeeded counter (1 to 0)"}},
		{"completionTime is immutable", func() *batchv1.Job {
			j := running()
			j.Status.CompletionTime = &later
			return j
		}(), func(st *batchv1.JobStatus) {
			t := metav1.NewTime(later.Add(time.Second))
			st.CompletionTime = &t
		}, []string{"completionTime is immutable", "completionTime without Complete=True"}},
		{"startTime is immutable while running", running(), func(st *batchv1.JobStatus) { st.StartTime = &later },
			[]string{"startTime is immutable for an unsuspended Job once set"}},
		{"not both Complete and Failed", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobComplete), isTrueCond(batchv1.JobSuccessCriteriaMet), isTrueCond(batchv1.JobFailed), isTrueCond(batchv1.JobFailureTarget)}
			st.CompletionTime, st.Active, st.Terminating = &later, 0, nil
		}, []string{
			"cannot set Complete=True and Failed=True", "cannot set Complete=True and FailureTarget=True",
			"cannot set SuccessCriteriaMet=True and Failed=True", "cannot set SuccessCriteriaMet=True and FailureTarget=True",
		}},
		{"not both Complete and FailureTarget", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobComplete), isTrueCond(batchv1.JobFailureTarget)}
			st.CompletionTime, st.Active = &later, 0
		}, []string{"cannot set Complete=True and FailureTarget=True", "Complete=True without SuccessCriteriaMet=True"}},
		{"completionTime only with Complete", running(), func(st *batchv1.JobStatus) { st.CompletionTime = &later },
			[]string{"completionTime without Complete=True"}},
		{"Complete only with completionTime", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobSuccessCriteriaMet), isTrueCond(batchv1.JobComplete)}
			st.Active = 0
		}, []string{"Complete=True without completionTime"}},
		{"completionTime not before startTime", running(), func(st *batchv1.JobStatus) {
			before := metav1.NewTime(start.Add(-time.Minute))
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobSuccessCriteriaMet), isTrueCond(batchv1.JobComplete)}
			st.CompletionTime, st.Active = &before, 0
		}, []string{"completionTime before startTime"}},
		{"Failed only after FailureTarget", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailed)}
			st.Active = 0
		}, []string{"Failed=True without FailureTarget=True"}},
		{"Complete only after SuccessCriteriaMet", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobComplete)}
			st.CompletionTime, st.Active = &later, 0
		}, []string{"Complete=True without SuccessCriteriaMet=True"}},
		{"no active pods once finished", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailureTarget), isTrueCond(batchv1.JobFailed)}
			st.Ready = int32p(0)
		}, []string{"active=2 for a finished Job"}},
		{"a finished Job has a startTime", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailureTarget), isTrueCond(batchv1.JobFailed)}
			st.StartTime, st.Active, st.Ready = nil, 0, int32p(0)
		}, []string{"startTime is immutable for an unsuspended Job once set", MsgNoStartTime}},
		{"nothing uncounted once finished (checked on every write)", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailureTarget), isTrueCond(batchv1.JobFailed)}
			st.Active, st.Ready = 0, int32p(0)
			st.UncountedTerminatedPods.Failed = []types.UID{"a"}
		}, []string{"uncountedTerminatedPods must be empty for a finished Job"}},
		{"nothing terminating once finished", running(), func(st *batchv1.JobStatus) {
			st.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobFailureTarget), isTrueCond(batchv1.JobFailed)}
			st.Active, st.Ready, st.Terminating = 0, int32p(0), int32p(1)
		}, []string{"terminating=1 for a finished Job"}},
		{"ready not above active", running(), func(st *batchv1.JobStatus) { st.Ready = int32p(3) },
			[]string{"ready=3 is more than active=2"}},
		{"not both SuccessCriteriaMet and Failed (checked on every write)", func() *batchv1.Job {
			// Stored already broken: the rule holds on every write, changed or not.
			j := running()
			j.Status.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobSuccessCriteriaMet), isTrueCond(batchv1.JobFailed)}
			return j
		}(), func(*batchv1.JobStatus) {}, []string{"cannot set SuccessCriteriaMet=True and Failed=True"}},
		{"not both SuccessCriteriaMet and FailureTarget (checked on every write)", func() *batchv1.Job {
			j := running()
			j.Status.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobSuccessCriteriaMet), isTrueCond(batchv1.JobFailureTarget)}
			return j
		}(), func(*batchv1.JobStatus) {}, []string{"cannot set SuccessCriteriaMet=True and FailureTarget=True"}},
		{"a success policy completes through SuccessCriteriaMet (checked on every write)", func() *batchv1.Job {
			j := running()
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{}
			j.Status.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobComplete)}
			return j
		}(), func(*batchv1.JobStatus) {}, []string{"Complete=True for a Job with a successPolicy needs SuccessCriteriaMet=True"}},
		{"no SuccessCriteriaMet added to a Complete Job", func() *batchv1.Job {
			j := running()
			j.Status.Conditions = []batchv1.JobCondition{isTrueCond(batchv1.JobComplete)}
			j.Status.CompletionTime, j.Status.Active, j.Status.Ready = &later, 0, int32p(0)
			return j
		}(), func(st *batchv1.JobStatus) {
			st.Conditions = append(st.Conditions, isTrueCond(batchv1.JobSuccessCriteriaMet))
		}, []string{"cannot add SuccessCriteriaMet=True to a Job already Complete"}},
		{"completedIndexes well formed, for Indexed Jobs only", running(), func(st *batchv1.JobStatus) { st.CompletedIndexes = "0" },
			[]string{"completedIndexes for a NonIndexed Job"}},
		{"failedIndexes well formed, with backoffLimitPerIndex only", running(), func(st *batchv1.JobStatus) { st.FailedIndexes = strp("1") },
			[]string{"failedIndexes without backoffLimitPerIndex"}},
		{"no index both completed and failed", indexedJob(), func(st *batchv1.JobStatus) { st.FailedIndexes = strp("0") },
			[]string{"index 0 is both completed and failed"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			covered[c.rule] = true
			st := c.old.Status.DeepCopy()
			c.write(st)
			if diff := cmp.Diff(c.want, ValidateStatusUpdate(c.old, st)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			// The stored status itself is valid, but where the case stores
			// a broken one on purpose to show a rule checked on every write.
			if got := ValidateStatusUpdate(c.old, c.old.Status.DeepCopy()); len(got) > 0 && !slices.Equal(got, c.want) {
				t.Errorf("the stored status alone breaks %q", got)
			}
		})
	}
	for _, r := range statusRules {
		if !covered[r.name] {
			t.Errorf("rule %q has no case", r.name)
		}
	}
}
