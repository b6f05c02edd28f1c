package jobspec_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/jobspec"
)

// dvErr is what a test pins of a field.Error: its type, path and value.
// Detail messages are prose and left free.
type dvErr struct {
	Type  field.ErrorType
	Field string
	Value any
}

func dvErrKeys(errs field.ErrorList) []dvErr {
	var out []dvErr
	for _, e := range errs {
		out = append(out, dvErr{e.Type, e.Field, e.BadValue})
	}
	return out
}

func required(path string) dvErr            { return dvErr{field.ErrorTypeRequired, path, ""} }
func invalid(path string, v any) dvErr      { return dvErr{field.ErrorTypeInvalid, path, v} }
func notSupported(path string, v any) dvErr { return dvErr{field.ErrorTypeNotSupported, path, v} }
func tooMany(path string, n int) dvErr      { return dvErr{field.ErrorTypeTooMany, path, n} }
func tooLong(path string) dvErr             { return dvErr{field.ErrorTypeTooLong, path, "<value omitted>"} }

func dvRule(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, values ...int32) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{
		Action:      action,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: values},
	}
}

func dvFailurePolicy(rules ...batchv1.PodFailurePolicyRule) *batchv1.PodFailurePolicy {
	return &batchv1.PodFailurePolicy{Rules: rules}
}

func dvIndexed(j *batchv1.Job, completions int32) {
	j.Spec.CompletionMode = dvPtr(batchv1.IndexedCompletion)
	j.Spec.Completions = dvPtr(completions)
}

func dvSuccess(rules ...batchv1.SuccessPolicyRule) *batchv1.SuccessPolicy {
	return &batchv1.SuccessPolicy{Rules: rules}
}

func TestValidate(t *testing.T) {
	ignore := dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 42)
	var manyRules []batchv1.PodFailurePolicyRule
	for range 21 {
		manyRules = append(manyRules, ignore)
	}
	var manyCodes []int32
	for i := range 256 {
		manyCodes = append(manyCodes, int32(i+1))
	}
	var manyPatterns []batchv1.PodFailurePolicyOnPodConditionsPattern
	for range 21 {
		manyPatterns = append(manyPatterns, batchv1.PodFailurePolicyOnPodConditionsPattern{Type: corev1.DisruptionTarget})
	}
	var manySuccessRules []batchv1.SuccessPolicyRule
	for range 21 {
		manySuccessRules = append(manySuccessRules, batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](1)})
	}
	long := strings.Repeat("a", 64)

	tests := []struct {
		name string
		raw  func(j *batchv1.Job) // on dvRawJob, before Default
		post func(j *batchv1.Job) // after Default
		want []dvErr
	}{
		{name: "a defaulted Job is valid"},
		{name: "no namespace: the request URL supplies it", raw: func(j *batchv1.Job) { j.Namespace = "" }},
		{name: "activeDeadlineSeconds 0 is accepted, as upstream accepts it", raw: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = dvPtr[int64](0) }},
		{
			name: "an Indexed Job with every policy is valid",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 10)
				j.Spec.BackoffLimitPerIndex = dvPtr[int32](2)
				j.Spec.MaxFailedIndexes = dvPtr[int32](10)
				j.Spec.PodFailurePolicy = dvFailurePolicy(
					dvRule(batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyOnExitCodesOpIn, 1, 2, 255),
					dvRule(batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0),
					batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
				)
				j.Spec.SuccessPolicy = dvSuccess(
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("0,2-4,9"), SucceededCount: dvPtr[int32](5)},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("+1,07")}, // strconv.Atoi's syntax, as upstream
					batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](10)},
				)
				j.Spec.ManagedBy = dvPtr("example.com/my-controller")
			},
		},
		{
			name: "huge Indexed Job without backoffLimitPerIndex: completions are not capped",
			raw:  func(j *batchv1.Job) { dvIndexed(j, 2_000_000_000); j.Spec.Parallelism = dvPtr[int32](100_000) },
		},

		// metadata
		{name: "no name", raw: func(j *batchv1.Job) { j.Name = "" }, want: []dvErr{required("metadata.name")}},
		{name: "name not a DNS subdomain", raw: func(j *batchv1.Job) { j.Name = "Bad_Name" }, want: []dvErr{invalid("metadata.name", "Bad_Name")}},
		{
			name: "name too long for the job-name labels",
			raw:  func(j *batchv1.Job) { j.Name = long },
			want: []dvErr{
				invalid("metadata.labels", long), invalid("metadata.labels", long),
				invalid("spec.template.labels", long), invalid("spec.template.labels", long),
			},
		},
		{name: "namespace not a DNS label", raw: func(j *batchv1.Job) { j.Namespace = "a.b" }, want: []dvErr{invalid("metadata.namespace", "a.b")}},
		{
			name: "Indexed: the last index's hostname is not a DNS label",
			raw:  func(j *batchv1.Job) { j.Name = strings.Repeat("h", 62); dvIndexed(j, 10) },
			want: []dvErr{invalid("metadata.name", strings.Repeat("h", 62))},
		},
		{
			name: "Indexed with a dotted name",
			raw:  func(j *batchv1.Job) { j.Name = "x.y"; dvIndexed(j, 1) },
			want: []dvErr{invalid("metadata.name", "x.y")},
		},

		// generated selector
		{
			name: "no UID: no generated selector",
			raw:  func(j *batchv1.Job) { j.UID = "" },
			want: []dvErr{
				required("metadata.uid"),
				required("spec.selector"),
				invalid("spec.template.metadata.labels", map[string]string(nil)),
			},
		},
		{
			name: "a generated label set by hand to another value",
			raw:  func(j *batchv1.Job) { j.Spec.Template.Labels = map[string]string{"job-name": "other"} },
			want: []dvErr{invalid("spec.template.metadata.labels[job-name]", "other")},
		},
		{
			name: "a generated label missing",
			post: func(j *batchv1.Job) { delete(j.Spec.Template.Labels, "controller-uid") },
			want: []dvErr{required("spec.template.metadata.labels[controller-uid]")},
		},
		{
			name: "a selector on another UID",
			raw:  func(j *batchv1.Job) { j.Spec.Selector = dvSelector("batch.kubernetes.io/controller-uid", "other") },
			want: []dvErr{
				invalid("spec.selector", dvSelector("batch.kubernetes.io/controller-uid", "other")),
				invalid("spec.template.metadata.labels", dvLabels("pi", "u1")),
			},
		},
		{
			name: "manualSelector without a selector",
			raw: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
			},
			want: []dvErr{required("spec.selector"), invalid("spec.template.metadata.labels", map[string]string{"app": "pi"})},
		},
		{
			name: "manualSelector with a selector that misses the template",
			raw: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = dvSelector("app", "other")
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
			},
			want: []dvErr{invalid("spec.template.metadata.labels", map[string]string{"app": "pi"})},
		},
		{
			name: "manualSelector with a malformed selector",
			raw: func(j *batchv1.Job) {
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
			},
			want: []dvErr{invalid("spec.selector.matchExpressions[0].operator", metav1.LabelSelectorOperator("Near"))},
		},
		{
			name: "manualSelector, a Job without a UID is fine",
			raw: func(j *batchv1.Job) {
				j.UID = ""
				j.Spec.ManualSelector = dvPtr(true)
				j.Spec.Selector = dvSelector("app", "pi")
				j.Spec.Template.Labels = map[string]string{"app": "pi"}
			},
		},

		// fields defaulting always sets
		{
			name: "defaulted fields unset",
			post: func(j *batchv1.Job) {
				s := &j.Spec
				s.Parallelism, s.BackoffLimit, s.CompletionMode, s.Suspend, s.PodReplacementPolicy, s.ManualSelector = nil, nil, nil, nil, nil, nil
			},
			want: []dvErr{
				required("spec.parallelism"), required("spec.backoffLimit"), required("spec.completionMode"),
				required("spec.podReplacementPolicy"), required("spec.suspend"), required("spec.manualSelector"),
			},
		},
		{
			name: "a pattern's status unset",
			raw: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = dvFailurePolicy(batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}})
			},
			post: func(j *batchv1.Job) { j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status = "" },
			want: []dvErr{required("spec.podFailurePolicy.rules[0].onPodConditions[0].status")},
		},

		// counts
		{
			name: "negative counts",
			raw: func(j *batchv1.Job) {
				s := &j.Spec
				s.Parallelism, s.Completions, s.BackoffLimit, s.TTLSecondsAfterFinished = dvPtr[int32](-1), dvPtr[int32](-2), dvPtr[int32](-3), dvPtr[int32](-4)
				s.ActiveDeadlineSeconds = dvPtr[int64](-5)
			},
			want: []dvErr{
				invalid("spec.parallelism", int64(-1)), invalid("spec.completions", int64(-2)),
				invalid("spec.activeDeadlineSeconds", int64(-5)), invalid("spec.backoffLimit", int64(-3)),
				invalid("spec.ttlSecondsAfterFinished", int64(-4)),
			},
		},
		{
			name: "negative per-index limits",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 3)
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = dvPtr[int32](-1), dvPtr[int32](-1)
			},
			want: []dvErr{invalid("spec.backoffLimitPerIndex", int64(-1)), invalid("spec.maxFailedIndexes", int64(-1))},
		},

		// completion mode and indexes
		{
			name: "unknown completion mode",
			raw:  func(j *batchv1.Job) { j.Spec.CompletionMode = dvPtr(batchv1.CompletionMode("Sparse")) },
			want: []dvErr{notSupported("spec.completionMode", batchv1.CompletionMode("Sparse"))},
		},
		{
			name: "Indexed without completions",
			raw: func(j *batchv1.Job) {
				j.Spec.CompletionMode = dvPtr(batchv1.IndexedCompletion)
				j.Spec.Parallelism = dvPtr[int32](2)
			},
			want: []dvErr{required("spec.completions")},
		},
		{
			name: "Indexed without completions, with a success policy: no panic, ranges unchecked",
			raw: func(j *batchv1.Job) {
				j.Spec.CompletionMode = dvPtr(batchv1.IndexedCompletion)
				j.Spec.Parallelism = dvPtr[int32](2)
				j.Spec.SuccessPolicy = dvSuccess(batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("7"), SucceededCount: dvPtr[int32](9)})
			},
			want: []dvErr{required("spec.completions"), invalid("spec.successPolicy.rules[0].succeededCount", int32(9))},
		},
		{
			name: "Indexed parallelism above 100000",
			raw:  func(j *batchv1.Job) { dvIndexed(j, 5); j.Spec.Parallelism = dvPtr[int32](100_001) },
			want: []dvErr{invalid("spec.parallelism", int32(100_001))},
		},
		{
			name: "maxFailedIndexes above completions",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 3)
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = dvPtr[int32](1), dvPtr[int32](4)
			},
			want: []dvErr{invalid("spec.maxFailedIndexes", int32(4))},
		},
		{
			name: "more than 100000 completions with backoffLimitPerIndex: tighter limits",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 200_000)
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = dvPtr[int32](1), dvPtr[int32](100_001)
				j.Spec.Parallelism = dvPtr[int32](10_001)
			},
			want: []dvErr{
				invalid("spec.maxFailedIndexes", int32(100_001)),
				invalid("spec.parallelism", int32(10_001)),
				invalid("spec.maxFailedIndexes", int32(100_001)),
			},
		},
		{
			name: "more than 100000 completions with backoffLimitPerIndex: maxFailedIndexes required",
			raw:  func(j *batchv1.Job) { dvIndexed(j, 100_001); j.Spec.BackoffLimitPerIndex = dvPtr[int32](0) },
			want: []dvErr{required("spec.maxFailedIndexes")},
		},
		{
			name: "maxFailedIndexes without backoffLimitPerIndex",
			raw:  func(j *batchv1.Job) { dvIndexed(j, 3); j.Spec.MaxFailedIndexes = dvPtr[int32](1) },
			want: []dvErr{required("spec.backoffLimitPerIndex")},
		},
		{
			name: "per-index limits on a NonIndexed Job",
			raw: func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = dvPtr[int32](1), dvPtr[int32](1)
			},
			want: []dvErr{invalid("spec.backoffLimitPerIndex", int32(1)), invalid("spec.maxFailedIndexes", int32(1))},
		},

		// managedBy
		{name: "managedBy the built-in controller", raw: func(j *batchv1.Job) { j.Spec.ManagedBy = dvPtr("kubernetes.io/job-controller") }},
		{name: "managedBy empty", raw: func(j *batchv1.Job) { j.Spec.ManagedBy = dvPtr("") }, want: []dvErr{required("spec.managedBy")}},
		{name: "managedBy not a path", raw: func(j *batchv1.Job) { j.Spec.ManagedBy = dvPtr("kueue") }, want: []dvErr{invalid("spec.managedBy", "kueue")}},
		{
			name: "managedBy too long",
			raw:  func(j *batchv1.Job) { j.Spec.ManagedBy = dvPtr("example.com/" + strings.Repeat("c", 60)) },
			want: []dvErr{tooLong("spec.managedBy")},
		},

		// pod failure policy
		{
			name: "podFailurePolicy with restartPolicy OnFailure",
			raw: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = dvFailurePolicy(ignore)
				j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			},
			want: []dvErr{invalid("spec.template.spec.restartPolicy", corev1.RestartPolicyOnFailure)},
		},
		{name: "21 rules", raw: func(j *batchv1.Job) { j.Spec.PodFailurePolicy = dvFailurePolicy(manyRules...) }, want: []dvErr{tooMany("spec.podFailurePolicy.rules", 21)}},
		{
			name: "rule actions",
			raw: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = dvFailurePolicy(
					dvRule("", batchv1.PodFailurePolicyOnExitCodesOpIn, 1),
					dvRule("Retry", batchv1.PodFailurePolicyOnExitCodesOpIn, 1),
					dvRule(batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyOnExitCodesOpIn, 1),
				)
			},
			want: []dvErr{
				required("spec.podFailurePolicy.rules[0].action"),
				notSupported("spec.podFailurePolicy.rules[1].action", batchv1.PodFailurePolicyAction("Retry")),
				invalid("spec.podFailurePolicy.rules[2].action", batchv1.PodFailurePolicyActionFailIndex),
			},
		},
		{
			name: "a rule needs exactly one requirement",
			raw: func(j *batchv1.Job) {
				both := dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 1)
				both.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}
				j.Spec.PodFailurePolicy = dvFailurePolicy(both, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore})
			},
			want: []dvErr{
				invalid("spec.podFailurePolicy.rules[0]", field.OmitValueType{}),
				invalid("spec.podFailurePolicy.rules[1]", field.OmitValueType{}),
			},
		},
		{
			name: "exit code requirements",
			raw: func(j *batchv1.Job) {
				j.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "busybox"}}
				initRule := dvRule(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, 3)
				initRule.OnExitCodes.ContainerName = dvPtr("setup")
				otherRule := dvRule(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, 3)
				otherRule.OnExitCodes.ContainerName = dvPtr("sidecar")
				j.Spec.PodFailurePolicy = dvFailurePolicy(
					dvRule(batchv1.PodFailurePolicyActionIgnore, "", 1),
					dvRule(batchv1.PodFailurePolicyActionIgnore, "Above", 1),
					initRule,
					otherRule,
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn),
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, manyCodes...),
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 0, 1),
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0, 1),
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 1, 1),
					dvRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 2, 1),
				)
			},
			want: []dvErr{
				required("spec.podFailurePolicy.rules[0].onExitCodes.operator"),
				notSupported("spec.podFailurePolicy.rules[1].onExitCodes.operator", batchv1.PodFailurePolicyOnExitCodesOperator("Above")),
				invalid("spec.podFailurePolicy.rules[3].onExitCodes.containerName", "sidecar"),
				invalid("spec.podFailurePolicy.rules[4].onExitCodes.values", []int32(nil)),
				tooMany("spec.podFailurePolicy.rules[5].onExitCodes.values", 256),
				invalid("spec.podFailurePolicy.rules[6].onExitCodes.values[0]", int32(0)),
				{field.ErrorTypeDuplicate, "spec.podFailurePolicy.rules[8].onExitCodes.values[1]", int32(1)},
				invalid("spec.podFailurePolicy.rules[9].onExitCodes.values", []int32{2, 1}),
			},
		},
		{
			name: "pod condition patterns",
			raw: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = dvFailurePolicy(
					batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
						{Type: "Not a name", Status: corev1.ConditionFalse},
						{Type: "example.com/Custom", Status: "Sometimes"},
					}},
					batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: manyPatterns},
				)
			},
			want: []dvErr{
				invalid("spec.podFailurePolicy.rules[0].onPodConditions[0].type", "Not a name"),
				notSupported("spec.podFailurePolicy.rules[0].onPodConditions[1].status", corev1.ConditionStatus("Sometimes")),
				tooMany("spec.podFailurePolicy.rules[1].onPodConditions", 21),
			},
		},

		// success policy
		{
			name: "successPolicy on a NonIndexed Job",
			raw: func(j *batchv1.Job) {
				j.Spec.SuccessPolicy = dvSuccess(batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](1)})
			},
			want: []dvErr{invalid("spec.successPolicy", *dvSuccess(batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](1)}))},
		},
		{
			name: "successPolicy rule counts",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 5)
				j.Spec.SuccessPolicy = dvSuccess()
			},
			want: []dvErr{required("spec.successPolicy.rules")},
		},
		{
			name: "21 success rules",
			raw:  func(j *batchv1.Job) { dvIndexed(j, 5); j.Spec.SuccessPolicy = dvSuccess(manySuccessRules...) },
			want: []dvErr{tooMany("spec.successPolicy.rules", 21)},
		},
		{
			name: "success rules",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 5)
				j.Spec.SuccessPolicy = dvSuccess(
					batchv1.SuccessPolicyRule{},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("0-5")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("3,1")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("1-1")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("1-2-3")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("0, 1")},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("-1")},
					batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](6)},
					batchv1.SuccessPolicyRule{SucceededCount: dvPtr[int32](-1)},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("0,2"), SucceededCount: dvPtr[int32](3)},
					batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr("x"), SucceededCount: dvPtr[int32](1)},
				)
			},
			want: []dvErr{
				required("spec.successPolicy.rules[0]"),
				invalid("spec.successPolicy.rules[1].succeededIndexes", "0-5"),
				invalid("spec.successPolicy.rules[2].succeededIndexes", "3,1"),
				invalid("spec.successPolicy.rules[3].succeededIndexes", "1-1"),
				invalid("spec.successPolicy.rules[4].succeededIndexes", "1-2-3"),
				invalid("spec.successPolicy.rules[5].succeededIndexes", "0, 1"),
				invalid("spec.successPolicy.rules[6].succeededIndexes", "-1"),
				invalid("spec.successPolicy.rules[7].succeededCount", int32(6)),
				invalid("spec.successPolicy.rules[8].succeededCount", int64(-1)),
				invalid("spec.successPolicy.rules[9].succeededCount", int32(3)),
				invalid("spec.successPolicy.rules[10].succeededIndexes", "x"),
				invalid("spec.successPolicy.rules[10].succeededCount", int32(1)),
			},
		},
		{
			name: "succeededIndexes longer than 64KiB",
			raw: func(j *batchv1.Job) {
				dvIndexed(j, 5)
				j.Spec.SuccessPolicy = dvSuccess(batchv1.SuccessPolicyRule{SucceededIndexes: dvPtr(strings.Repeat("1", 64*1024+1))})
			},
			want: []dvErr{
				tooLong("spec.successPolicy.rules[0].succeededIndexes"),
				invalid("spec.successPolicy.rules[0].succeededIndexes", strings.Repeat("1", 64*1024+1)),
			},
		},

		// pod replacement policy
		{
			name: "TerminatingOrFailed with a podFailurePolicy",
			raw: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = dvFailurePolicy(ignore)
				j.Spec.PodReplacementPolicy = dvPtr(batchv1.TerminatingOrFailed)
			},
			want: []dvErr{notSupported("spec.podReplacementPolicy", batchv1.TerminatingOrFailed)},
		},
		{
			name: "unknown podReplacementPolicy",
			raw:  func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = dvPtr(batchv1.PodReplacementPolicy("Never")) },
			want: []dvErr{notSupported("spec.podReplacementPolicy", batchv1.PodReplacementPolicy("Never"))},
		},

		// pod template
		{
			name: "restartPolicy unset",
			raw:  func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			want: []dvErr{required("spec.template.spec.restartPolicy")},
		},
		{
			name: "restartPolicy Always",
			raw:  func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways },
			want: []dvErr{required("spec.template.spec.restartPolicy")},
		},
		{
			name: "restartPolicy unknown",
			raw:  func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "Sometimes" },
			want: []dvErr{notSupported("spec.template.spec.restartPolicy", corev1.RestartPolicy("Sometimes"))},
		},
		{
			name: "template label key malformed (copied to the Job's labels too)",
			raw:  func(j *batchv1.Job) { j.Spec.Template.Labels = map[string]string{"a b": "v"} },
			want: []dvErr{invalid("metadata.labels", "a b"), invalid("spec.template.labels", "a b")},
		},
		{
			name: "template annotations too large",
			raw: func(j *batchv1.Job) {
				j.Spec.Template.Annotations = map[string]string{"big": strings.Repeat("z", 256*1024)}
			},
			want: []dvErr{tooLong("spec.template.annotations")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := dvRawJob()
			if tt.raw != nil {
				tt.raw(raw)
			}
			job := jobspec.Default(raw)
			if tt.post != nil {
				tt.post(job)
			}
			before := job.DeepCopy()
			errs := jobspec.Validate(job)
			if d := cmp.Diff(tt.want, dvErrKeys(errs)); d != "" {
				t.Errorf("Validate (-want +got):\n%s\nerrors: %v", d, errs)
			}
			if d := cmp.Diff(before, job); d != "" {
				t.Errorf("Validate modified its input:\n%s", d)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Error(), e.Field+": ") {
					t.Errorf("error %q does not name its field %q", e.Error(), e.Field)
				}
			}
		})
	}
}

func TestValidateNil(t *testing.T) {
	errs := jobspec.Validate(nil)
	if d := cmp.Diff([]dvErr{required("")}, dvErrKeys(errs)); d != "" {
		t.Errorf("Validate(nil) (-want +got):\n%s", d)
	}
}

// TestValidateOrderIsStable: several malformed labels give their errors in
// the same order every time, though they come from a map.
func TestValidateOrderIsStable(t *testing.T) {
	raw := dvRawJob()
	raw.Spec.Template.Labels = map[string]string{"a b": "1", "c d": "2", "e f": "3", "g h": "4", "i j": "5"}
	job := jobspec.Default(raw)
	first := dvErrKeys(jobspec.Validate(job))
	for range 20 {
		if d := cmp.Diff(first, dvErrKeys(jobspec.Validate(job))); d != "" {
			t.Fatalf("order changed:\n%s", d)
		}
	}
}

// FuzzDefaultValidate feeds Default and Validate any Job that JSON or YAML
// can describe. Neither may panic, neither may modify its input, Default
// must be idempotent, Validate deterministic, and every error must render.
func FuzzDefaultValidate(f *testing.F) {
	seeds := []string{
		`{}`,
		`null`,
		`{"metadata":{"name":"pi","uid":"u1"},"spec":{"template":{"spec":{"containers":[{"name":"pi","image":"perl"}],"restartPolicy":"Never"}}}}`,
		`{"metadata":{"name":"ix","uid":"u2"},"spec":{"completionMode":"Indexed","completions":5,"parallelism":2,"backoffLimitPerIndex":1,"maxFailedIndexes":2,
		  "podFailurePolicy":{"rules":[{"action":"FailIndex","onExitCodes":{"operator":"In","values":[1,2]}},{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]},
		  "successPolicy":{"rules":[{"succeededIndexes":"0,2-4","succeededCount":2}]},
		  "template":{"spec":{"containers":[{"name":"main","image":"busybox"}],"restartPolicy":"Never"}}}}`,
		`{"spec":{"manualSelector":true,"selector":{"matchExpressions":[{"key":"a","operator":"Bad"}]},"template":{"metadata":{"labels":{"a":"b"}}}}}`,
		`{"spec":{"completionMode":"Indexed","successPolicy":{"rules":[{"succeededIndexes":"0-99999999999999999999"}]}}}`,
		`{"spec":{"selector":null,"template":{"metadata":{"labels":null}},"podFailurePolicy":{"rules":[{"onExitCodes":null,"onPodConditions":[]}]}}}`,
		"metadata:\n  name: y\n  uid: u3\n  labels: {}\nspec:\n  completionMode: Indexed\n  completions: 2147483647\n  parallelism: -1\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var job *batchv1.Job
		if err := yaml.Unmarshal(data, &job); err != nil {
			return
		}
		var before *batchv1.Job
		if job != nil {
			before = job.DeepCopy()
		}
		_ = jobspec.Validate(job).ToAggregate() // the raw Job: errors, never a panic
		once := jobspec.Default(job)
		if d := cmp.Diff(before, job); d != "" {
			t.Fatalf("Default modified its input:\n%s", d)
		}
		if d := cmp.Diff(once, jobspec.Default(once)); d != "" {
			t.Fatalf("Default is not idempotent (-once +twice):\n%s", d)
		}
		var onceCopy *batchv1.Job
		if once != nil {
			onceCopy = once.DeepCopy()
		}
		errs := jobspec.Validate(once)
		if d := cmp.Diff(dvErrKeys(errs), dvErrKeys(jobspec.Validate(once))); d != "" {
			t.Fatalf("Validate is not deterministic:\n%s", d)
		}
		if d := cmp.Diff(onceCopy, once); d != "" {
			t.Fatalf("Validate modified its input:\n%s", d)
		}
		if agg := errs.ToAggregate(); agg != nil {
			_ = agg.Error()
		}
	})
}
