package harness

import (
	"os"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/jobsync"
)

// A difference is excused only when it is a listed deviation's situation,
// not merely of its class: of these error disagreements (class "Error",
// D2's class), only D2's own is excused.
func TestAllowedRecognisesTheDeviationNotJustItsClass(t *testing.T) {
	devs, err := LoadDeviations("../DEVIATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := Allowed(devs)
	bare := func() *batchv1.Job {
		return &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: "default"},
			Spec: batchv1.JobSpec{
				Parallelism: ptr.To[int32](2), ManualSelector: ptr.To(true), Selector: &metav1.LabelSelector{},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}},
			},
		}
	}
	const refusal = "unable to create pods, no labels"
	verdict := func(job *batchv1.Job, up, lib Outcome) Verdict {
		return Verdict{
			Case:     gen.Case{Family: "deviation", Snapshot: jobsync.Snapshot{Job: job}},
			Upstream: up, Library: lib,
			Diff: "(error differs)", Classes: []string{"Error"},
		}
	}
	labelled := bare()
	labelled.Spec.Template.Labels = map[string]string{"app": "x"}
	indexed := bare()
	indexed.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	indexed.Spec.Completions = ptr.To[int32](2)
	creating := Outcome{Creations: []*corev1.Pod{{}}}
	for _, c := range []struct {
		name string
		v    Verdict
		want bool
	}{
		{"D2: no template labels, upstream's refusal, library plans nothing", verdict(bare(), Outcome{Error: refusal}, Outcome{}), true},
		{"D2 with the completion mode spelled out", verdict(func() *batchv1.Job {
			j := bare()
			j.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
			return j
		}(), Outcome{Error: refusal}, Outcome{}), true},
		{"upstream fails otherwise", verdict(bare(), Outcome{Error: "pods \"bare-x\" already exists"}, Outcome{}), false},
		{"upstream's refusal and more", verdict(bare(), Outcome{Error: refusal + "; extra status write from x"}, Outcome{}), false},
		{"the library errs, upstream does not", verdict(bare(), Outcome{}, Outcome{Error: "job.spec.selector: invalid"}), false},
		{"both err", verdict(bare(), Outcome{Error: refusal}, Outcome{Error: "job: something"}), false},
		{"template with labels", verdict(labelled, Outcome{Error: refusal}, Outcome{}), false},
		{"an Indexed Job", verdict(indexed, Outcome{Error: refusal}, Outcome{}), false},
		{"the library creates pods", verdict(bare(), Outcome{Error: refusal}, creating), false},
		{"no Job", verdict(nil, Outcome{Error: refusal}, Outcome{}), false},
		{"D2 with a status the API server rejects on both sides alike", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Invalid = []string{"interimStatus: status.completionTime: must be equal to or after `startTime`"}
			v.UpstreamInvalid = v.Invalid
			return v
		}(), true},
		{"D2 with a status the API server rejects from the library only", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Invalid = []string{"interimStatus: status.completionTime: must be equal to or after `startTime`"}
			return v
		}(), false},
		{"D2 with statuses rejected differently", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Invalid = []string{"interimStatus: status.completionTime: must be equal to or after `startTime`"}
			v.UpstreamInvalid = []string{"status: status.succeeded: must be at most completions"}
			return v
		}(), false},
		{"a panic", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Panic = "boom"
			return v
		}(), false},
		{"D2 whose plan changes with the settled pods left out", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Settled = "with 1 settled pods left out, the plan differs"
			return v
		}(), false},
		{"D2 whose plan changes with the active pods held", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Held = "with 1 active pods held in an ActivePods, the plan differs"
			return v
		}(), false},
		{"another class", func() Verdict {
			v := verdict(bare(), Outcome{Error: refusal}, Outcome{})
			v.Classes = []string{"Error", "Status"}
			return v
		}(), false},
		{"D1's class without its overflow", func() Verdict {
			v := verdict(bare(), Outcome{}, Outcome{Error: "job.status.failed: must be >= 0"})
			v.Classes = []string{"Backoff.FailuresAfterLastSuccess", "Backoff.LastFailureTime", "Error", "Expectations.FinalizerRemovals", "FinalizerRemovals", "InterimStatus", "RequeueAfter", "Status"}
			return v
		}(), false},
	} {
		if got := allowed(c.v); got != c.want {
			t.Errorf("%s: allowed = %v, want %v (class %q)", c.name, got, c.want, c.v.Class())
		}
	}
}

// D3 excuses the library's refusal of a negative activeDeadlineSeconds only
// where upstream, without an error, starts failing the Job for its
// deadline: not another refusal, not another Job, not an upstream that
// erred or decided otherwise.
func TestAllowedRecognisesNegativeDeadline(t *testing.T) {
	devs, err := LoadDeviations("../DEVIATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := Allowed(devs)
	job := func(deadline int64) *batchv1.Job {
		return &batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr.To[int32](1), ActiveDeadlineSeconds: ptr.To(deadline)}}
	}
	failing := func(typ batchv1.JobConditionType, reason string) Outcome {
		return Outcome{Status: &batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: typ, Status: corev1.ConditionTrue, Reason: reason}}}}
	}
	const refusal = "job.spec.activeDeadlineSeconds: must not be negative (got -5)"
	verdict := func(j *batchv1.Job, up Outcome, libErr string) Verdict {
		return Verdict{
			Case:     gen.Case{Family: "deviation", Snapshot: jobsync.Snapshot{Job: j}},
			Upstream: up, Library: Outcome{Error: libErr},
			Diff: "(differs)", Classes: []string{"Deletions", "Error", "Expectations.FinalizerRemovals", "FinalizerRemovals", "InterimStatus", "Status"},
		}
	}
	for _, c := range []struct {
		name string
		v    Verdict
		want bool
	}{
		{"FailureTarget for the deadline", verdict(job(-5), failing(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded), refusal), true},
		{"Failed for the deadline", verdict(job(-5), failing(batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded), refusal), true},
		{"a deadline that is not negative", verdict(job(0), failing(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded), refusal), false},
		{"no deadline", verdict(&batchv1.Job{}, failing(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded), refusal), false},
		{"another refusal", verdict(job(-5), failing(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded), "job.spec.backoffLimit: must not be negative (got -1)"), false},
		{"upstream fails the Job for another reason", verdict(job(-5), failing(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded), refusal), false},
		{"upstream erred", func() Verdict {
			up := failing(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded)
			up.Error = "some error"
			return verdict(job(-5), up, refusal)
		}(), false},
		{"upstream writes no status", verdict(job(-5), Outcome{}, refusal), false},
	} {
		if got := allowed(c.v); got != c.want {
			t.Errorf("%s: allowed = %v, want %v", c.name, got, c.want)
		}
	}
}

// An entry of DEVIATIONS.md that no situation recognises is refused: its
// class alone would excuse too much.
func TestLoadDeviationsRefusesAnEntryWithoutSituation(t *testing.T) {
	path := t.TempDir() + "/DEVIATIONS.md"
	text := "### D9: something new\n- class: `Error`\n- test: `x_test.go TestX`\n"
	if err := writeFile(path, text); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDeviations(path); err == nil {
		t.Fatal("LoadDeviations accepted an entry with no situation")
	}
}

func writeFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
