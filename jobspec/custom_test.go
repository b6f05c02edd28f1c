package jobspec_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobspec"
)

// TestPrepare checks the per-sync step: a Job view is defaulted as Default
// defaults it, its errors are Validate's, the input is left as it was, and
// two syncs of one object agree.
func TestPrepare(t *testing.T) {
	raw := dvRawJob()
	before := raw.DeepCopy()
	got, errs := jobspec.Prepare(raw)
	if len(errs) != 0 {
		t.Fatalf("errors on a valid Job: %v", errs)
	}
	if d := cmp.Diff(dvDefaulted(), got); d != "" {
		t.Errorf("Prepare (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, raw); d != "" {
		t.Errorf("Prepare modified its input:\n%s", d)
	}
	again, _ := jobspec.Prepare(raw)
	if d := cmp.Diff(got, again); d != "" {
		t.Errorf("a second sync differs (-first +second):\n%s", d)
	}

	bad := dvRawJob()
	bad.Spec.Template.Spec.RestartPolicy = ""
	if _, errs := jobspec.Prepare(bad); len(errs) != 1 || errs[0].Field != "spec.template.spec.restartPolicy" {
		t.Errorf("restartPolicy unset: got %v, want one error on spec.template.spec.restartPolicy", errs)
	}
	if j, errs := jobspec.Prepare(nil); j != nil || len(errs) != 1 {
		t.Errorf("nil: got %v, %v", j, errs)
	}
}

// TestValidateNew checks the admission-time check of an object without a
// UID: what the UID would settle is not reported, what no UID can mend is.
func TestValidateNew(t *testing.T) {
	noUID := func(mut func(*batchv1.Job)) *batchv1.Job {
		j := dvRawJob()
		j.UID = ""
		if mut != nil {
			mut(j)
		}
		return j
	}
	tests := []struct {
		name       string
		job        *batchv1.Job
		want       []string // field paths
		wantDetail string   // in the first error's detail
	}{
		{name: "valid, no UID yet", job: noUID(nil)},
		{name: "valid with manual selector", job: noUID(func(j *batchv1.Job) {
			j.Spec.ManualSelector = dvPtr(true)
			j.Spec.Selector = dvSelector("app", "pi")
			j.Spec.Template.Labels = map[string]string{"app": "pi"}
		})},
		{name: "restartPolicy missing", job: noUID(func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" }),
			want: []string{"spec.template.spec.restartPolicy"}},
		{name: "generated label set by hand", job: noUID(func(j *batchv1.Job) {
			j.Spec.Template.Labels = map[string]string{"batch.kubernetes.io/controller-uid": "mine"}
		}), want: []string{"spec.template.metadata.labels[batch.kubernetes.io/controller-uid]", "spec.template.metadata.labels"}, wantDetail: "must be the UID assigned at creation"},
		{name: "selector without manualSelector", job: noUID(func(j *batchv1.Job) {
			j.Spec.Selector = dvSelector("app", "pi")
			j.Spec.Template.Labels = map[string]string{"app": "pi"}
		}), want: []string{"spec.selector"}},
		{name: "a UID given is checked as is", job: dvRawJob()},
		{name: "nil", job: nil, want: []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before *batchv1.Job
			if tc.job != nil {
				before = tc.job.DeepCopy()
			}
			errs := jobspec.ValidateNew(tc.job)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("error fields (-want +got):\n%s\n%v", d, errs)
			}
			if tc.wantDetail != "" && !strings.Contains(errs[0].Detail, tc.wantDetail) {
				t.Errorf("detail %q does not say %q", errs[0].Detail, tc.wantDetail)
			}
			for _, e := range errs {
				if strings.Contains(e.Detail, "uid-assigned-at-creation") {
					t.Errorf("detail names the stand-in UID: %q", e.Detail)
				}
			}
			if tc.job != nil {
				if d := cmp.Diff(before, tc.job); d != "" {
					t.Errorf("ValidateNew modified its input:\n%s", d)
				}
			}
		})
	}
}

// TestPropertyValidateNewAgreesWithPrepare checks, on Jobs with any mix of
// odd fields, that what the webhook reports before creation is what every
// sync reports after it, whatever UID the object is given.
func TestPropertyValidateNewAgreesWithPrepare(t *testing.T) {
	keys := func(errs field.ErrorList) []string {
		var out []string
		for _, e := range errs {
			out = append(out, string(e.Type)+" "+e.Field)
		}
		return out
	}
	rapid.Check(t, func(t *rapid.T) {
		job := dvWildJob(t)
		job.UID = ""
		created := job.DeepCopy()
		created.UID = "5a0f3c2e-9d7b-4e61-8f0a-2b6c4d8e1f37"
		_, after := jobspec.Prepare(created)
		if d := cmp.Diff(keys(after), keys(jobspec.ValidateNew(job))); d != "" {
			t.Fatalf("ValidateNew before creation and Prepare after disagree (-after +before):\n%s", d)
		}
	})
}
