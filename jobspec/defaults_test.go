package jobspec_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobspec"
)

func dvPtr[T any](v T) *T { return &v }

// dvLabels are the template labels the API server generates for a Job
// named name with the given UID.
func dvLabels(name, uid string, extra ...string) map[string]string {
	m := map[string]string{
		"batch.kubernetes.io/controller-uid": uid,
		"batch.kubernetes.io/job-name":       name,
		"controller-uid":                     uid,
		"job-name":                           name,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func dvSelector(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

// dvRawJob is a Job as a person writes it: name, UID (as the API server
// would have assigned it), one container, restartPolicy Never.
func dvRawJob() *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "u1"},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					Containers:    []corev1.Container{{Name: "main", Image: "perl"}},
					RestartPolicy: corev1.RestartPolicyNever,
				},
			},
		},
	}
}

// dvDefaulted is dvRawJob with every default applied, spelt out by hand.
func dvDefaulted() *batchv1.Job {
	j := dvRawJob()
	j.Labels = dvLabels("pi", "u1")
	j.Spec.Completions = dvPtr[int32](1)
	j.Spec.Parallelism = dvPtr[int32](1)
	j.Spec.BackoffLimit = dvPtr[int32](6)
	j.Spec.CompletionMode = dvPtr(batchv1.NonIndexedCompletion)
	j.Spec.Suspend = dvPtr(false)
	j.Spec.PodReplacementPolicy = dvPtr(batchv1.TerminatingOrFailed)
	j.Spec.ManualSelector = dvPtr(false)
	j.Spec.Selector = dvSelector("batch.kubernetes.io/controller-uid", "u1")
	j.Spec.Template.Labels = dvLabels("pi", "u1")
	return j
}

func TestDefault(t *testing.T) {
	tests := []struct {
		name string
		in   func(j *batchv1.Job) // applied to dvRawJob
		want func(j *batchv1.Job) // applied to dvDefaulted
	}{
		{
			name: "a bare Job gets every default, the generated selector and labels, and Job labels from its template",
			in:   func(j *batchv1.Job) {},
			want: func(j *batchv1.Job) {},
		},
		{
			name: "completions set alone: parallelism 1",
			in:   func(j *batchv1.Job) { j.Spec.Completions = dvPtr[int32](5) },
			want: func(j *batchv1.Job) { j.Spec.Completions = dvPtr[int32](5) },
		},
		{
			name: "parallelism set alone: completions stay unset (a work queue)",
			in:   func(j *batchv1.Job) { j.Spec.Parallelism = dvPtr[int32](3) },
			want: func(j *batchv1.Job) { j.Spec.Completions = nil; j.Spec.Parallelism = dvPtr[int32](3) },
		},
		{
			name: "parallelism 0 is kept",
			in:   func(j *batchv1.Job) { j.Spec.Parallelism = dvPtr[int32](0) },
			want: func(j *batchv1.Job) { j.Spec.Completions = nil; j.Spec.Parallelism = dvPtr[int32](0) },
		},
		{
			name: "backoffLimitPerIndex: backoffLimit defaults to MaxInt32",
			in: func(j *batchv1.Job) {
				j.Spec.CompletionMode = dvPtr(batchv1.IndexedCompletion)
				j.Spec.Completions = dvPtr[int32](4)
				j.Spec.BackoffLimitPerIndex = dvPtr[int32](1)
			},
			want: func(j *batchv1.Job) {
				j.Spec.CompletionMode = dvPtr(batchv1.IndexedCompletion)
				j.Spec.Completions = dvPtr[int32](4)
				j.Spec.BackoffLimitPerIndex = dvPtr[int32](1)
				j.Spec.BackoffLimit = dvPtr[int32](math.MaxInt32)
			},
		},
		{
			name: "set fields are kept",
			in: func(j *batchv1.Job) {
				j.Spec.BackoffLimit = dvPtr[int32](0)
				j.Spec.Suspend = dvPtr(true)
				j.Spec.PodReplacementPolicy = dvPtr(batchv1.Failed)
				j.Spec.CompletionMode = dvPtr(batchv1.CompletionMode("Bogus"))
			},
			want: func(j *batchv1.Job) {
				j.Spec.BackoffLimit = dvPtr[int32](0)
				j.Spec.Suspend = dvPtr(true)
				j.Spec.PodReplacementPolicy = dvPtr(batchv1.Failed)
				j.Spec.CompletionMode = dvPtr(batchv1.CompletionMode("Bogus"))
			},
		},
		{
			name: "podFailurePolicy: replacement policy Failed, pattern status True",
			in: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
					Action:          batchv1.PodFailurePolicyActionIgnore,
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}, {Type: "Custom", Status: corev1.ConditionFalse}},
				}}}
			},
			want: func(j *batchv1.Job) {
				j.Spec.PodReplacementPolicy = dvPtr(batchv1.Failed)
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
					Action: batchv1.PodFailurePolicyActionIgnore,
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
						{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
						{Type: "Custom", Status: corev1.ConditionFalse},
					},
				}}}
			},
		},
		{
			name: "manualSelector true: no generation; Job labels still copied from the template",
			in: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = dvSelector("app", "pi")
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
			},
			want: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = dvSelector("app", "pi")
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
				j.Labels = map[string]string{"app": "pi"}
			},
		},
		{
			name: "manualSelector true without template labels: nothing to copy",
			in:   func(j *batchv1.Job) { j.Spec.ManualSelector = dvPtr(true) },
			want: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = nil
				j.Spec.Template.Labels = nil
				j.Labels = nil
			},
		},
		{
			name: "no UID: no generated selector or labels, for Validate to report",
			in:   func(j *batchv1.Job) { j.UID = "" },
			want: func(j *batchv1.Job) {
				j.UID = ""
				j.Spec.Selector = nil
				j.Spec.Template.Labels = nil
				j.Labels = nil
			},
		},
		{
			name: "no UID, template labels: they are copied to the Job",
			in:   func(j *batchv1.Job) { j.UID = ""; j.Spec.Template.Labels = map[string]string{"app": "pi"} },
			want: func(j *batchv1.Job) {
				j.UID = ""
				j.Spec.Selector = nil
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
				j.Labels = map[string]string{"app": "pi"}
			},
		},
		{
			name: "labels the caller set are kept, even conflicting ones; the Job's own labels are kept",
			in: func(j *batchv1.Job) {
				j.Labels = map[string]string{"team": "a"}
				j.Spec.Template.Labels = map[string]string{"job-name": "other", "app": "x"}
				j.Spec.Selector = dvSelector("app", "x")
			},
			want: func(j *batchv1.Job) {
				j.Labels = map[string]string{"team": "a"}
				j.Spec.Template.Labels = dvLabels("pi", "u1", "job-name", "other", "app", "x")
				j.Spec.Selector = dvSelector("app", "x", "batch.kubernetes.io/controller-uid", "u1")
			},
		},
		{
			name: "a selector already holding a controller-uid keeps it",
			in: func(j *batchv1.Job) {
				j.Spec.Selector = &metav1.LabelSelector{
					MatchLabels:      map[string]string{"batch.kubernetes.io/controller-uid": "wrong"},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}},
				}
			},
			want: func(j *batchv1.Job) {
				j.Spec.Selector = &metav1.LabelSelector{
					MatchLabels:      map[string]string{"batch.kubernetes.io/controller-uid": "wrong"},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}},
				}
			},
		},
		{
			name: "an empty template label map is filled; an empty Job label map is replaced",
			in: func(j *batchv1.Job) {
				j.Labels = map[string]string{}
				j.Spec.Template.Labels = map[string]string{}
				j.Spec.Selector = &metav1.LabelSelector{}
			},
			want: func(j *batchv1.Job) {},
		},
		{
			name: "restartPolicy is not defaulted",
			in:   func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			want: func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
		},
		{
			name: "status, generation and other metadata are kept",
			in: func(j *batchv1.Job) {
				j.Generation = 4
				j.Annotations = map[string]string{"a": "b"}
				j.Status = batchv1.JobStatus{Active: 2, Ready: dvPtr[int32](1)}
			},
			want: func(j *batchv1.Job) {
				j.Generation = 4
				j.Annotations = map[string]string{"a": "b"}
				j.Status = batchv1.JobStatus{Active: 2, Ready: dvPtr[int32](1)}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := dvRawJob()
			tt.in(in)
			before := in.DeepCopy()
			want := dvDefaulted()
			tt.want(want)
			got := jobspec.Default(in)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Default (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, in); d != "" {
				t.Errorf("Default modified its input (-before +after):\n%s", d)
			}
		})
	}
}

func TestDefaultNil(t *testing.T) {
	if got := jobspec.Default(nil); got != nil {
		t.Errorf("Default(nil) = %v, want nil", got)
	}
}

// TestDefaultSharesNothing checks that the result shares no map with the
// input, and that the Job's labels are a copy of the template's, not the
// same map.
func TestDefaultSharesNothing(t *testing.T) {
	in := dvRawJob()
	in.Spec.Template.Labels = map[string]string{"app": "pi"}
	in.Spec.Selector = dvSelector("app", "pi")
	before := in.DeepCopy()
	out := jobspec.Default(in)
	out.Labels["x"] = "1"
	out.Spec.Template.Labels["y"] = "2"
	out.Spec.Selector.MatchLabels["z"] = "3"
	if d := cmp.Diff(before, in); d != "" {
		t.Errorf("writing to the result changed the input (-before +after):\n%s", d)
	}
	if _, ok := out.Spec.Template.Labels["x"]; ok {
		t.Errorf("the Job's labels and the template's labels are one map")
	}
}

// TestPropertyDefaultIdempotentAndPure: on any Job, valid or not, Default
// does not modify its input, gives the same answer twice, and changes
// nothing on a Job it has already defaulted.
func TestPropertyDefaultIdempotentAndPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := dvWildJob(t)
		before := job.DeepCopy()
		once := jobspec.Default(job)
		if d := cmp.Diff(before, job); d != "" {
			t.Fatalf("Default modified its input (-before +after):\n%s", d)
		}
		if d := cmp.Diff(once, jobspec.Default(job)); d != "" {
			t.Fatalf("Default is not deterministic:\n%s", d)
		}
		onceCopy := once.DeepCopy()
		twice := jobspec.Default(once)
		if d := cmp.Diff(once, twice); d != "" {
			t.Fatalf("Default is not idempotent (-once +twice):\n%s", d)
		}
		if d := cmp.Diff(onceCopy, once); d != "" {
			t.Fatalf("Default modified its (defaulted) input:\n%s", d)
		}
		errs := jobspec.Validate(once)
		if d := cmp.Diff(dvErrKeys(errs), dvErrKeys(jobspec.Validate(once))); d != "" {
			t.Fatalf("Validate is not deterministic:\n%s", d)
		}
		if d := cmp.Diff(onceCopy, once); d != "" {
			t.Fatalf("Validate modified its input:\n%s", d)
		}
		_ = jobspec.Validate(job) // not defaulted: errors, never a panic
	})
}

// TestPropertyDefaultedReasonableJobsAreValid: a Job built from legal
// choices for every field passes Validate once defaulted.
func TestPropertyDefaultedReasonableJobsAreValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := dvReasonableJob(t)
		if errs := jobspec.Validate(jobspec.Default(job)); len(errs) != 0 {
			t.Fatalf("Validate(Default(job)) = %v, want no errors", errs)
		}
	})
}

// dvWildJob draws a Job with any mix of unset, odd and conflicting fields,
// including the ones Default looks at.
func dvWildJob(t *rapid.T) *batchv1.Job {
	i32 := func(label string) *int32 {
		return rapid.SampledFrom([]*int32{nil, dvPtr[int32](-1), dvPtr[int32](0), dvPtr[int32](3), dvPtr[int32](math.MaxInt32)}).Draw(t, label)
	}
	b := func(label string) *bool {
		return rapid.SampledFrom([]*bool{nil, dvPtr(false), dvPtr(true)}).Draw(t, label)
	}
	labelMap := func(label string) map[string]string {
		return rapid.SampledFrom([]map[string]string{
			nil, {}, {"app": "x"}, {"job-name": "other"}, {"batch.kubernetes.io/controller-uid": "zzz", "controller-uid": ""},
			{"bad key!": "v"},
		}).Draw(t, label)
	}
	j := &batchv1.Job{}
	j.Name = rapid.SampledFrom([]string{"", "pi", "Bad_Name", strings.Repeat("n", 70)}).Draw(t, "name")
	j.UID = types.UID(rapid.SampledFrom([]string{"", "u1", "u 2"}).Draw(t, "uid"))
	j.Labels = labelMap("jobLabels")
	j.Spec.Template.Labels = labelMap("templateLabels")
	s := &j.Spec
	s.Completions, s.Parallelism, s.BackoffLimit = i32("completions"), i32("parallelism"), i32("backoffLimit")
	s.BackoffLimitPerIndex, s.MaxFailedIndexes = i32("backoffLimitPerIndex"), i32("maxFailedIndexes")
	s.Suspend, s.ManualSelector = b("suspend"), b("manualSelector")
	s.CompletionMode = rapid.SampledFrom([]*batchv1.CompletionMode{nil, dvPtr(batchv1.NonIndexedCompletion), dvPtr(batchv1.IndexedCompletion), dvPtr(batchv1.CompletionMode(""))}).Draw(t, "mode")
	s.PodReplacementPolicy = rapid.SampledFrom([]*batchv1.PodReplacementPolicy{nil, dvPtr(batchv1.Failed), dvPtr(batchv1.PodReplacementPolicy("x"))}).Draw(t, "replacement")
	switch rapid.IntRange(0, 3).Draw(t, "selector") {
	case 1:
		s.Selector = &metav1.LabelSelector{}
	case 2:
		s.Selector = dvSelector("batch.kubernetes.io/controller-uid", "other")
	case 3:
		s.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bad"}}}
	}
	if rapid.Bool().Draw(t, "pfp") {
		s.PodFailurePolicy = &batchv1.PodFailurePolicy{}
		for range rapid.IntRange(0, 3).Draw(t, "rules") {
			r := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyAction(rapid.SampledFrom([]string{"", "Ignore", "FailIndex"}).Draw(t, "action"))}
			if rapid.Bool().Draw(t, "exit") {
				r.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{0, 1}}
			}
			for range rapid.IntRange(0, 2).Draw(t, "patterns") {
				r.OnPodConditions = append(r.OnPodConditions, batchv1.PodFailurePolicyOnPodConditionsPattern{
					Type:   corev1.PodConditionType(rapid.SampledFrom([]string{"", "DisruptionTarget"}).Draw(t, "type")),
					Status: corev1.ConditionStatus(rapid.SampledFrom([]string{"", "True", "Maybe"}).Draw(t, "status")),
				})
			}
			s.PodFailurePolicy.Rules = append(s.PodFailurePolicy.Rules, r)
		}
	}
	if rapid.Bool().Draw(t, "successPolicy") {
		s.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{
			SucceededIndexes: rapid.SampledFrom([]*string{nil, dvPtr(""), dvPtr("0-2,5"), dvPtr("9-1"), dvPtr("0-99999999999")}).Draw(t, "indexes"),
			SucceededCount:   i32("succeededCount"),
		}}}
	}
	s.Template.Spec.RestartPolicy = corev1.RestartPolicy(rapid.SampledFrom([]string{"", "Never", "Always"}).Draw(t, "restartPolicy"))
	return j
}

// dvReasonableJob draws a Job from legal choices only: any field may be
// left for Default, and fields that constrain each other are drawn
// together.
func dvReasonableJob(t *rapid.T) *batchv1.Job {
	mode := rapid.IntRange(0, 2).Draw(t, "mode")
	indexed := mode == 2
	names := []string{"pi", "a", "batch-job", strings.Repeat("j", 40)}
	if !indexed {
		// A dotted name is a DNS subdomain but makes no hostname, which
		// only Indexed Jobs' pods need.
		names = append(names, "x.y")
	}
	name := rapid.SampledFrom(names).Draw(t, "name")
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{
		Name:      name,
		Namespace: rapid.SampledFrom([]string{"", "default", "team-a"}).Draw(t, "namespace"),
		UID:       types.UID(fmt.Sprintf("uid-%d", rapid.IntRange(0, 9).Draw(t, "uid"))),
	}}
	if rapid.Bool().Draw(t, "jobLabels") {
		j.Labels = map[string]string{"team": "a"}
	}
	s := &j.Spec
	s.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	if rapid.Bool().Draw(t, "init") {
		s.Template.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "busybox"}}
	}
	opt32 := func(label string, lo, hi int32) *int32 {
		if rapid.Bool().Draw(t, label+"Unset") {
			return nil
		}
		return dvPtr(rapid.Int32Range(lo, hi).Draw(t, label))
	}

	switch mode {
	case 1:
		s.CompletionMode = dvPtr(batchv1.NonIndexedCompletion)
	case 2:
		s.CompletionMode = dvPtr(batchv1.IndexedCompletion)
	}
	if indexed {
		big := rapid.IntRange(0, 9).Draw(t, "bigIndexed") == 0
		if big {
			s.Completions = dvPtr(rapid.Int32Range(100_001, 1_000_000).Draw(t, "completions"))
			s.BackoffLimitPerIndex = dvPtr(rapid.Int32Range(0, 3).Draw(t, "backoffLimitPerIndex"))
			s.MaxFailedIndexes = dvPtr(rapid.Int32Range(0, 10_000).Draw(t, "maxFailedIndexes"))
			s.Parallelism = opt32("parallelism", 0, 10_000)
		} else {
			s.Completions = dvPtr(rapid.Int32Range(0, 100).Draw(t, "completions"))
			s.Parallelism = opt32("parallelism", 0, 100_000)
			s.BackoffLimitPerIndex = opt32("backoffLimitPerIndex", 0, 5)
			if s.BackoffLimitPerIndex != nil {
				s.MaxFailedIndexes = opt32("maxFailedIndexes", 0, *s.Completions)
			}
		}
	} else {
		s.Completions = opt32("completions", 0, 1000)
		s.Parallelism = opt32("parallelism", 0, 1000)
	}
	s.BackoffLimit = opt32("backoffLimit", 0, 10)
	if !rapid.Bool().Draw(t, "noDeadline") {
		s.ActiveDeadlineSeconds = dvPtr(rapid.Int64Range(0, 3600).Draw(t, "activeDeadlineSeconds"))
	}
	s.TTLSecondsAfterFinished = opt32("ttlSecondsAfterFinished", 0, 3600)
	s.Suspend = rapid.SampledFrom([]*bool{nil, dvPtr(false), dvPtr(true)}).Draw(t, "suspend")
	s.ManagedBy = rapid.SampledFrom([]*string{nil, dvPtr("kubernetes.io/job-controller"), dvPtr("example.com/my-controller")}).Draw(t, "managedBy")

	s.Template.Spec.RestartPolicy = rapid.SampledFrom([]corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}).Draw(t, "restartPolicy")
	if rapid.Bool().Draw(t, "podFailurePolicy") {
		s.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		s.PodFailurePolicy = dvReasonableFailurePolicy(t, s)
		s.PodReplacementPolicy = rapid.SampledFrom([]*batchv1.PodReplacementPolicy{nil, dvPtr(batchv1.Failed)}).Draw(t, "podReplacementPolicy")
	} else {
		s.PodReplacementPolicy = rapid.SampledFrom([]*batchv1.PodReplacementPolicy{nil, dvPtr(batchv1.Failed), dvPtr(batchv1.TerminatingOrFailed)}).Draw(t, "podReplacementPolicy")
	}
	if indexed && *s.Completions > 0 && rapid.Bool().Draw(t, "successPolicy") {
		s.SuccessPolicy = dvReasonableSuccessPolicy(t, *s.Completions)
	}

	if rapid.Bool().Draw(t, "manualSelector") {
		s.ManualSelector = dvPtr(true)
		s.Selector = dvSelector("app", name)
		s.Template.Labels = map[string]string{"app": name, "tier": "batch"}
		return j
	}
	s.ManualSelector = rapid.SampledFrom([]*bool{nil, dvPtr(false)}).Draw(t, "manualSelectorFalse")
	switch rapid.IntRange(0, 2).Draw(t, "templateLabels") {
	case 1:
		s.Template.Labels = map[string]string{}
	case 2:
		s.Template.Labels = map[string]string{"app": name}
	}
	if rapid.Bool().Draw(t, "presetSelector") {
		s.Selector = dvSelector("batch.kubernetes.io/controller-uid", string(j.UID))
	}
	if rapid.Bool().Draw(t, "templateAnnotations") {
		s.Template.Annotations = map[string]string{"example.com/note": "x"}
	}
	return j
}

func dvReasonableFailurePolicy(t *rapid.T, s *batchv1.JobSpec) *batchv1.PodFailurePolicy {
	actions := []batchv1.PodFailurePolicyAction{
		batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore,
	}
	if s.BackoffLimitPerIndex != nil {
		actions = append(actions, batchv1.PodFailurePolicyActionFailIndex)
	}
	containers := []*string{nil, dvPtr("main")}
	for _, c := range s.Template.Spec.InitContainers {
		containers = append(containers, dvPtr(c.Name))
	}
	policy := &batchv1.PodFailurePolicy{}
	for range rapid.IntRange(0, 20).Draw(t, "rules") {
		rule := batchv1.PodFailurePolicyRule{Action: rapid.SampledFrom(actions).Draw(t, "action")}
		if rapid.Bool().Draw(t, "onExitCodes") {
			op := rapid.SampledFrom([]batchv1.PodFailurePolicyOnExitCodesOperator{
				batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn,
			}).Draw(t, "operator")
			lo := int32(1)
			if op == batchv1.PodFailurePolicyOnExitCodesOpNotIn {
				lo = 0
			}
			// Increasing, distinct values: a strictly increasing walk.
			var values []int32
			v := lo + rapid.Int32Range(0, 3).Draw(t, "first")
			for range rapid.IntRange(1, 255).Draw(t, "values") {
				values = append(values, v)
				v += rapid.Int32Range(1, 1000).Draw(t, "step")
			}
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: rapid.SampledFrom(containers).Draw(t, "containerName"),
				Operator:      op,
				Values:        values,
			}
		} else {
			for range rapid.IntRange(1, 20).Draw(t, "patterns") {
				rule.OnPodConditions = append(rule.OnPodConditions, batchv1.PodFailurePolicyOnPodConditionsPattern{
					Type:   rapid.SampledFrom([]corev1.PodConditionType{corev1.DisruptionTarget, corev1.PodReady, "example.com/Custom"}).Draw(t, "type"),
					Status: rapid.SampledFrom([]corev1.ConditionStatus{"", corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}).Draw(t, "status"),
				})
			}
		}
		policy.Rules = append(policy.Rules, rule)
	}
	return policy
}

func dvReasonableSuccessPolicy(t *rapid.T, completions int32) *batchv1.SuccessPolicy {
	policy := &batchv1.SuccessPolicy{}
	for range rapid.IntRange(1, 20).Draw(t, "successRules") {
		var rule batchv1.SuccessPolicyRule
		listed := completions
		if rapid.Bool().Draw(t, "succeededIndexes") {
			list, n := dvIndexList(t, completions)
			rule.SucceededIndexes, listed = &list, n
		}
		if rule.SucceededIndexes == nil || rapid.Bool().Draw(t, "succeededCount") {
			rule.SucceededCount = dvPtr(rapid.Int32Range(0, listed).Draw(t, "count"))
		}
		policy.Rules = append(policy.Rules, rule)
	}
	return policy
}

// dvIndexList draws a set of indexes below completions (and below 200, to
// keep lists short) and writes it as the API does ("0,2-4"), returning the
// list and its size.
func dvIndexList(t *rapid.T, completions int32) (string, int32) {
	var parts []string
	var n int32
	completions = min(completions, 200)
	for i := int32(0); i < completions; {
		if !rapid.Bool().Draw(t, "member") {
			i++
			continue
		}
		end := i + rapid.Int32Range(0, min(completions-1-i, 5)).Draw(t, "run")
		if end == i {
			parts = append(parts, fmt.Sprint(i))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", i, end))
		}
		n += end - i + 1
		i = end + 2 // leave a gap so that runs are not adjacent
	}
	return strings.Join(parts, ","), n
}
