package jobspec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits of the v1.36 API server's Job validation.
const (
	// An Indexed Job may not run more pods at once than this; it bounds the
	// length of status.completedIndexes.
	maxIndexedParallelism = 100_000
	// Nor may it tolerate more failed indexes than this.
	maxIndexedMaxFailedIndexes = 100_000
	// Above this many completions, an Indexed Job with backoffLimitPerIndex
	// must set maxFailedIndexes, and both it and parallelism are held to
	// the tighter limits below.
	highCompletions                        = 100_000
	maxParallelismWithHighCompletions      = 10_000
	maxMaxFailedIndexesWithHighCompletions = 10_000

	maxFailurePolicyRules    = 20
	maxExitCodeValues        = 255
	maxPodConditionPatterns  = 20
	maxSuccessPolicyRules    = 20
	maxSucceededIndexesBytes = 64 * 1024
	maxManagedByLength       = 63
)

// Validate reports what the v1.36 API server (feature gates at their
// defaults) would reject in job if asked to create it, limited to the checks
// that bear on the Job controller's decisions, and what a defaulted Job must
// have: call it on the result of Default, since a field that defaulting
// always sets is reported as Required when it is unset. It reads the spec
// and metadata only, never the status, and never modifies job. It returns
// nil when it finds nothing; a nil job gives a single Required error whose
// field path is empty (the root). Each error has the field path, type and
// bad value that the API server reports, in the API server's order; detail
// messages are worded for this package.
//
// The checks are in this file, one function per part of the Job, called in
// this order and each documenting what it checks and where it departs from
// the API server: validateJobMeta, validateGeneratedLabels,
// validateJobSpecFields (and the validate* functions it calls),
// validateSelector and validateIndexedHostnames. Left out, as they do not
// change what the controller decides: the pod spec beyond restartPolicy and
// container names, owner references, finalizers, managed fields, and the
// rules for updates of a stored Job.
func Validate(job *batchv1.Job) field.ErrorList {
	if job == nil {
		// A path named "" prints as "[]", so the root error is built by
		// hand with an empty Field.
		return field.ErrorList{{Type: field.ErrorTypeRequired, Field: "", BadValue: "", Detail: "a Job is required, got nil"}}
	}
	var errs field.ErrorList
	errs = append(errs, validateJobMeta(&job.ObjectMeta)...)
	errs = append(errs, validateGeneratedLabels(job)...)
	errs = append(errs, validateJobSpecFields(&job.Spec)...)
	errs = append(errs, validateSelector(&job.Spec)...)
	errs = append(errs, validateIndexedHostnames(job)...)
	return errs
}

// validateJobMeta checks the metadata: name required and a DNS subdomain;
// namespace a DNS label when set (the API server takes an unset one from
// the request URL); labels and annotations well formed.
func validateJobMeta(meta *metav1.ObjectMeta) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("metadata")
	if meta.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "pods are named and labelled after their Job; a generateName must have been turned into a name"))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(meta.Name, false) {
			errs = append(errs, field.Invalid(path.Child("name"), meta.Name, msg))
		}
	}
	if meta.Namespace != "" {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(meta.Namespace, false) {
			errs = append(errs, field.Invalid(path.Child("namespace"), meta.Namespace, msg))
		}
	}
	errs = append(errs, validateLabelMap(meta.Labels, path.Child("labels"))...)
	errs = append(errs, validateAnnotationMap(meta.Annotations, path.Child("annotations"))...)
	return errs
}

// validateGeneratedLabels checks, unless spec.manualSelector is true, that
// the generation happened: the UID is set, the template carries the four
// generated labels with the Job's UID and name, and the selector picks them.
// Where it departs from the API server: a missing UID is reported also when
// the selector is missing (upstream reports it only once a selector exists;
// Default makes the selector from the UID), and a generated label set to
// another value is reported with that value rather than the whole label map.
func validateGeneratedLabels(job *batchv1.Job) field.ErrorList {
	spec := &job.Spec
	if spec.ManualSelector != nil && *spec.ManualSelector {
		return nil
	}
	var errs field.ErrorList
	if job.UID == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"),
			"the generated selector and pod labels are made from it (unless spec.manualSelector is true)"))
	}
	if spec.Selector == nil {
		return errs // reported as Required with the selector's own checks
	}
	labelsPath := field.NewPath("spec", "template", "metadata", "labels")
	want := []struct{ key, value string }{
		{legacyControllerUIDLabel, string(job.UID)},
		{legacyJobNameLabel, job.Name},
		{batchv1.ControllerUidLabel, string(job.UID)},
		{batchv1.JobNameLabel, job.Name},
	}
	expected := labels.Set{}
	for _, w := range want {
		expected[w.key] = w.value
		got, ok := spec.Template.Labels[w.key]
		switch {
		case !ok:
			errs = append(errs, field.Required(labelsPath.Key(w.key), fmt.Sprintf("must be %q, as generated for this Job", w.value)))
		case got != w.value:
			errs = append(errs, field.Invalid(labelsPath.Key(w.key), got, fmt.Sprintf("must be %q, as generated for this Job", w.value)))
		}
	}
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(expected) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), spec.Selector,
			"does not select the generated labels; set spec.manualSelector to true to choose the selector yourself"))
	}
	return errs
}

// validateJobSpecFields checks the spec's own fields: the fields defaulting
// always sets (parallelism, backoffLimit, completionMode, suspend,
// podReplacementPolicy, manualSelector) Required when unset;
// parallelism, completions, activeDeadlineSeconds, backoffLimit,
// ttlSecondsAfterFinished, backoffLimitPerIndex and maxFailedIndexes not
// negative (activeDeadlineSeconds 0 is accepted, as upstream accepts it);
// maxFailedIndexes only with backoffLimitPerIndex; managedBy a
// domain-prefixed path of at most 63 bytes; successPolicy only for Indexed
// Jobs. The completion mode, the pod failure policy, the success policy,
// podReplacementPolicy and the template have functions of their own.
func validateJobSpecFields(spec *batchv1.JobSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")
	defaulted := "set by the API server's defaulting (see Default)"

	if spec.Parallelism == nil {
		errs = append(errs, field.Required(path.Child("parallelism"), defaulted))
	}
	for _, c := range []struct {
		name string
		v    *int32
	}{
		{"parallelism", spec.Parallelism},
		{"completions", spec.Completions},
	} {
		if c.v != nil {
			errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*c.v), path.Child(c.name))...)
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(*spec.ActiveDeadlineSeconds, path.Child("activeDeadlineSeconds"))...)
	}
	if spec.BackoffLimit == nil {
		errs = append(errs, field.Required(path.Child("backoffLimit"), defaulted))
	}
	for _, c := range []struct {
		name string
		v    *int32
	}{
		{"backoffLimit", spec.BackoffLimit},
		{"ttlSecondsAfterFinished", spec.TTLSecondsAfterFinished},
		{"backoffLimitPerIndex", spec.BackoffLimitPerIndex},
		{"maxFailedIndexes", spec.MaxFailedIndexes},
	} {
		if c.v != nil {
			errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*c.v), path.Child(c.name))...)
		}
	}
	if spec.MaxFailedIndexes != nil && spec.BackoffLimitPerIndex == nil {
		errs = append(errs, field.Required(path.Child("backoffLimitPerIndex"), "when maxFailedIndexes is set"))
	}
	if spec.ManagedBy != nil {
		errs = append(errs, utilvalidation.IsDomainPrefixedPath(path.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			errs = append(errs, field.TooLong(path.Child("managedBy"), *spec.ManagedBy, maxManagedByLength))
		}
	}
	errs = append(errs, validateCompletionMode(spec, path)...)
	if spec.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(spec, path.Child("podFailurePolicy"))...)
	}
	if spec.SuccessPolicy != nil {
		if !isIndexedSpec(spec) {
			errs = append(errs, field.Invalid(path.Child("successPolicy"), *spec.SuccessPolicy, "is only supported for Indexed Jobs"))
		} else {
			errs = append(errs, validateSuccessPolicy(spec, path.Child("successPolicy"))...)
		}
	}
	errs = append(errs, validatePodReplacementPolicy(spec, path.Child("podReplacementPolicy"))...)
	if spec.Suspend == nil {
		errs = append(errs, field.Required(path.Child("suspend"), defaulted))
	}
	if spec.ManualSelector == nil {
		errs = append(errs, field.Required(path.Child("manualSelector"), defaulted))
	}
	errs = append(errs, validateTemplate(spec, path.Child("template"))...)
	return errs
}

func isIndexedSpec(spec *batchv1.JobSpec) bool {
	return spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
}

// validateCompletionMode checks completionMode NonIndexed or Indexed, the
// limits of an Indexed Job (validateIndexedLimits), and that a NonIndexed
// Job sets neither backoffLimitPerIndex nor maxFailedIndexes.
func validateCompletionMode(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case spec.CompletionMode == nil:
		errs = append(errs, field.Required(path.Child("completionMode"), "set by the API server's defaulting (see Default)"))
	case *spec.CompletionMode == batchv1.IndexedCompletion:
		errs = append(errs, validateIndexedLimits(spec, path)...)
	case *spec.CompletionMode != batchv1.NonIndexedCompletion:
		errs = append(errs, field.NotSupported(path.Child("completionMode"), *spec.CompletionMode,
			[]batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
	}
	if spec.CompletionMode == nil || *spec.CompletionMode == batchv1.NonIndexedCompletion {
		// Per-index failure budgets need indexes. (An unknown mode has
		// been reported above and is not reported twice.)
		if spec.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(path.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "is only supported for Indexed Jobs"))
		}
		if spec.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "is only supported for Indexed Jobs"))
		}
	}
	return errs
}

// validateIndexedLimits checks an Indexed Job: completions required,
// parallelism at most 100000, maxFailedIndexes at most completions and at
// most 100000, and with backoffLimitPerIndex and completions above 100000
// maxFailedIndexes required and both it and parallelism at most 10000.
func validateIndexedLimits(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Completions == nil {
		errs = append(errs, field.Required(path.Child("completions"), "an Indexed Job needs completions: its indexes are 0 to completions-1"))
	}
	if spec.Parallelism != nil && *spec.Parallelism > maxIndexedParallelism {
		errs = append(errs, field.Invalid(path.Child("parallelism"), *spec.Parallelism,
			fmt.Sprintf("may be at most %d for an Indexed Job", maxIndexedParallelism)))
	}
	maxFailed := spec.MaxFailedIndexes
	if spec.Completions != nil && maxFailed != nil && *maxFailed > *spec.Completions {
		errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *maxFailed, "may be at most completions"))
	}
	if maxFailed != nil && *maxFailed > maxIndexedMaxFailedIndexes {
		errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *maxFailed,
			fmt.Sprintf("may be at most %d", maxIndexedMaxFailedIndexes)))
	}
	if spec.Completions == nil || *spec.Completions <= highCompletions || spec.BackoffLimitPerIndex == nil {
		return errs
	}
	why := fmt.Sprintf("with backoffLimitPerIndex and more than %d completions", highCompletions)
	if maxFailed == nil {
		errs = append(errs, field.Required(path.Child("maxFailedIndexes"), "must be set "+why))
	}
	if spec.Parallelism != nil && *spec.Parallelism > maxParallelismWithHighCompletions {
		errs = append(errs, field.Invalid(path.Child("parallelism"), *spec.Parallelism,
			fmt.Sprintf("may be at most %d %s", maxParallelismWithHighCompletions, why)))
	}
	if maxFailed != nil && *maxFailed > maxMaxFailedIndexesWithHighCompletions {
		errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *maxFailed,
			fmt.Sprintf("may be at most %d %s", maxMaxFailedIndexesWithHighCompletions, why)))
	}
	return errs
}

var (
	failurePolicyActions = []batchv1.PodFailurePolicyAction{
		batchv1.PodFailurePolicyActionCount,
		batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionFailJob,
		batchv1.PodFailurePolicyActionIgnore,
	}
	exitCodeOperators = []batchv1.PodFailurePolicyOnExitCodesOperator{
		batchv1.PodFailurePolicyOnExitCodesOpIn,
		batchv1.PodFailurePolicyOnExitCodesOpNotIn,
	}
	conditionStatuses = []corev1.ConditionStatus{
		corev1.ConditionFalse,
		corev1.ConditionTrue,
		corev1.ConditionUnknown,
	}
)

// validatePodFailurePolicy checks at most 20 rules, each as
// validateFailurePolicyRule says.
func validatePodFailurePolicy(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.PodFailurePolicy.Rules
	rulesPath := path.Child("rules")
	if len(rules) > maxFailurePolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxFailurePolicyRules))
	}
	containers := map[string]bool{}
	for _, c := range spec.Template.Spec.Containers {
		containers[c.Name] = true
	}
	for _, c := range spec.Template.Spec.InitContainers {
		containers[c.Name] = true
	}
	for i := range rules {
		errs = append(errs, validateFailurePolicyRule(spec, &rules[i], rulesPath.Index(i), containers)...)
	}
	return errs
}

// validateFailurePolicyRule checks one rule: an action among Count,
// FailIndex (only with backoffLimitPerIndex), FailJob and Ignore, and
// exactly one of onExitCodes and onPodConditions.
func validateFailurePolicyRule(spec *batchv1.JobSpec, rule *batchv1.PodFailurePolicyRule, path *field.Path, containers map[string]bool) field.ErrorList {
	var errs field.ErrorList
	actionPath := path.Child("action")
	switch {
	case rule.Action == "":
		errs = append(errs, field.Required(actionPath, fmt.Sprintf("one of %q", failurePolicyActions)))
	case rule.Action == batchv1.PodFailurePolicyActionFailIndex:
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(actionPath, rule.Action, "needs spec.backoffLimitPerIndex"))
		}
	case !slices.Contains(failurePolicyActions, rule.Action):
		errs = append(errs, field.NotSupported(actionPath, rule.Action, failurePolicyActions))
	}
	if rule.OnExitCodes != nil {
		errs = append(errs, validateOnExitCodes(rule.OnExitCodes, path.Child("onExitCodes"), containers)...)
	}
	if len(rule.OnPodConditions) > 0 {
		errs = append(errs, validateOnPodConditions(rule.OnPodConditions, path.Child("onPodConditions"))...)
	}
	switch {
	case rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "may set onExitCodes or onPodConditions, not both"))
	case rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "must set one of onExitCodes and onPodConditions"))
	}
	return errs
}

// validateOnExitCodes checks operator In or NotIn, containerName one of the
// template's containers or init containers, and 1 to 255 values,
// increasing, unique, and no 0 with In.
func validateOnExitCodes(req *batchv1.PodFailurePolicyOnExitCodesRequirement, path *field.Path, containers map[string]bool) field.ErrorList {
	var errs field.ErrorList
	opPath := path.Child("operator")
	switch {
	case req.Operator == "":
		errs = append(errs, field.Required(opPath, fmt.Sprintf("one of %q", exitCodeOperators)))
	case !slices.Contains(exitCodeOperators, req.Operator):
		errs = append(errs, field.NotSupported(opPath, req.Operator, exitCodeOperators))
	}
	if req.ContainerName != nil && !containers[*req.ContainerName] {
		errs = append(errs, field.Invalid(path.Child("containerName"), *req.ContainerName,
			"names no container or init container of the pod template"))
	}
	valuesPath := path.Child("values")
	switch {
	case len(req.Values) == 0:
		errs = append(errs, field.Invalid(valuesPath, req.Values, "needs at least one exit code"))
	case len(req.Values) > maxExitCodeValues:
		errs = append(errs, field.TooMany(valuesPath, len(req.Values), maxExitCodeValues))
	}
	seen := make(map[int32]bool, len(req.Values))
	sorted := true
	for i, v := range req.Values {
		if req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(valuesPath.Index(i), v, "0 means success and cannot be matched with In"))
		}
		if seen[v] {
			errs = append(errs, field.Duplicate(valuesPath.Index(i), v))
		}
		seen[v] = true
		if i > 0 && req.Values[i-1] > v {
			sorted = false
		}
	}
	if !sorted {
		errs = append(errs, field.Invalid(valuesPath, req.Values, "must be in increasing order"))
	}
	return errs
}

// validateOnPodConditions checks at most 20 patterns, each type a
// qualified name and status True, False or Unknown (Required when unset:
// defaulting sets it).
func validateOnPodConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(patterns) > maxPodConditionPatterns {
		errs = append(errs, field.TooMany(path, len(patterns), maxPodConditionPatterns))
	}
	for i, p := range patterns {
		pPath := path.Index(i)
		for _, msg := range utilvalidation.IsQualifiedName(string(p.Type)) {
			errs = append(errs, field.Invalid(pPath.Child("type"), string(p.Type), msg))
		}
		switch {
		case p.Status == "":
			errs = append(errs, field.Required(pPath.Child("status"), fmt.Sprintf("one of %q (defaulted to True, see Default)", conditionStatuses)))
		case !slices.Contains(conditionStatuses, p.Status):
			errs = append(errs, field.NotSupported(pPath.Child("status"), p.Status, conditionStatuses))
		}
	}
	return errs
}

// validateSuccessPolicy checks, for an Indexed Job, 1 to 20 rules, each as
// validateSuccessPolicyRule says.
func validateSuccessPolicy(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.SuccessPolicy.Rules
	rulesPath := path.Child("rules")
	if len(rules) == 0 {
		errs = append(errs, field.Required(rulesPath, "a successPolicy needs at least one rule"))
	}
	if len(rules) > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxSuccessPolicyRules))
	}
	for i := range rules {
		errs = append(errs, validateSuccessPolicyRule(spec, &rules[i], rulesPath.Index(i))...)
	}
	return errs
}

// validateSuccessPolicyRule checks succeededIndexes (an increasing list of
// indexes and ranges below completions, at most 64KiB) and/or
// succeededCount (not negative, at most completions, at most the number of
// succeededIndexes). Where it departs from the API server: an Indexed Job
// without completions gets its rules checked without an upper bound on
// indexes, where v1.36.3's validation dereferences the missing completions.
func validateSuccessPolicyRule(spec *batchv1.JobSpec, rule *batchv1.SuccessPolicyRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rule.SucceededIndexes == nil && rule.SucceededCount == nil {
		errs = append(errs, field.Required(path, "a rule needs succeededIndexes, succeededCount or both"))
	}
	// Without completions (already reported as Required) the list must
	// still be well formed, with indexes that fit in an int32.
	limit := int32(math.MaxInt32)
	if spec.Completions != nil {
		limit = *spec.Completions
	}
	var listed int32
	if rule.SucceededIndexes != nil {
		ixPath := path.Child("succeededIndexes")
		if len(*rule.SucceededIndexes) > maxSucceededIndexesBytes {
			errs = append(errs, field.TooLong(ixPath, *rule.SucceededIndexes, maxSucceededIndexesBytes))
		}
		n, err := countIndexList(*rule.SucceededIndexes, limit)
		if err != nil {
			errs = append(errs, field.Invalid(ixPath, *rule.SucceededIndexes, err.Error()))
		}
		listed = n
	}
	if rule.SucceededCount != nil {
		cPath := path.Child("succeededCount")
		count := *rule.SucceededCount
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(count), cPath)...)
		if spec.Completions != nil && count > *spec.Completions {
			errs = append(errs, field.Invalid(cPath, count, fmt.Sprintf("may be at most completions (%d)", *spec.Completions)))
		}
		// As upstream, a succeededIndexes that failed to parse counts as
		// listing no index here.
		if rule.SucceededIndexes != nil && count > listed {
			errs = append(errs, field.Invalid(cPath, count, fmt.Sprintf("may be at most the number of succeededIndexes (%d)", listed)))
		}
	}
	return errs
}

// countIndexList parses a list of completion indexes as the API server
// accepts it in a success policy ("0,3-5,9": single indexes and ranges of
// at least two, comma separated, each above the previous one) and returns
// how many indexes it holds. Every index must be below limit, so the count
// is at most limit. The empty list holds none.
func countIndexList(s string, limit int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var total int32
	prev := int64(-1)
	for _, part := range strings.Split(s, ",") {
		bounds := strings.Split(part, "-")
		if len(bounds) > 2 {
			return 0, fmt.Errorf("%q: an interval has at most two bounds, separated by '-'", part)
		}
		lo, err := parseListedIndex(bounds[0], limit)
		if err != nil {
			return 0, err
		}
		hi := lo
		if len(bounds) == 2 {
			if hi, err = parseListedIndex(bounds[1], limit); err != nil {
				return 0, err
			}
			if lo >= hi {
				return 0, fmt.Errorf("%q: the interval must go from a lower to a higher index", part)
			}
		}
		if lo <= prev {
			return 0, fmt.Errorf("%q: indexes must increase, and %d does not follow %d", part, lo, prev)
		}
		total += int32(hi - lo + 1) // at most limit in all: the intervals are disjoint and below it
		prev = hi
	}
	return total, nil
}

func parseListedIndex(s string, limit int32) (int64, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not an index", s)
	}
	if v >= int(limit) {
		return 0, fmt.Errorf("index %d is out of range: indexes go from 0 to %d", v, int64(limit)-1)
	}
	return int64(v), nil
}

// validatePodReplacementPolicy checks TerminatingOrFailed or Failed, and
// only Failed when podFailurePolicy is set.
func validatePodReplacementPolicy(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	p := spec.PodReplacementPolicy
	switch {
	case p == nil:
		return field.ErrorList{field.Required(path, "set by the API server's defaulting (see Default)")}
	case spec.PodFailurePolicy != nil:
		if *p != batchv1.Failed {
			return field.ErrorList{field.NotSupported(path, *p, []batchv1.PodReplacementPolicy{batchv1.Failed})}
		}
	case *p != batchv1.Failed && *p != batchv1.TerminatingOrFailed:
		return field.ErrorList{field.NotSupported(path, *p, []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed})}
	}
	return nil
}

// validateTemplate checks the pod template: labels and annotations well
// formed, restartPolicy OnFailure or Never (unset and Always are
// Required), and Never when podFailurePolicy is set.
func validateTemplate(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	tmpl := &spec.Template
	// The API server reports these two at spec.template.labels and
	// spec.template.annotations (no "metadata"); the same paths are kept
	// here so that errors compare equal.
	errs = append(errs, validateLabelMap(tmpl.Labels, path.Child("labels"))...)
	errs = append(errs, validateAnnotationMap(tmpl.Annotations, path.Child("annotations"))...)
	rpPath := path.Child("spec", "restartPolicy")
	allowed := []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	switch rp := tmpl.Spec.RestartPolicy; {
	case rp == "" || rp == corev1.RestartPolicyAlways:
		// Pod defaulting turns an unset restartPolicy into Always, so the
		// two are one mistake: the Job's pods must be allowed to finish.
		errs = append(errs, field.Required(rpPath, fmt.Sprintf("one of %q: a Job's pods must be able to finish", allowed)))
	case !slices.Contains(allowed, rp):
		errs = append(errs, field.NotSupported(rpPath, rp, allowed))
	case spec.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(rpPath, rp, "must be Never when podFailurePolicy is set: the policy acts on failed pods, and with OnFailure the kubelet restarts the containers instead"))
	}
	return errs
}

// validateSelector checks the selector: required, well formed, and
// selecting the template labels.
func validateSelector(spec *batchv1.JobSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "selector")
	if spec.Selector == nil {
		errs = append(errs, field.Required(path, "generated by Default unless spec.manualSelector is true"))
	} else {
		errs = append(errs, validateLabelMap(spec.Selector.MatchLabels, path.Child("matchLabels"))...)
		// The match labels are checked above in a stable order.
		rest := *spec.Selector
		rest.MatchLabels = nil
		errs = append(errs, metav1validation.ValidateLabelSelector(&rest, metav1validation.LabelSelectorValidationOptions{}, path)...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "template", "metadata", "labels"), spec.Template.Labels,
			"are not selected by spec.selector: the Job would not see its own pods"))
	}
	return errs
}

// validateIndexedHostnames checks that every pod of an Indexed Job can get
// its hostname, the Job's name followed by "-" and the index; the longest
// is that of the last index.
func validateIndexedHostnames(job *batchv1.Job) field.ErrorList {
	spec := &job.Spec
	if !isIndexedSpec(spec) || spec.Completions == nil || *spec.Completions <= 0 {
		return nil
	}
	host := fmt.Sprintf("%s-%d", job.Name, *spec.Completions-1)
	if msgs := utilvalidation.IsDNS1123Label(host); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), job.Name,
			fmt.Sprintf("the pod of the last index would get the hostname %q, which is not a DNS label: %s", host, strings.Join(msgs, "; ")))}
	}
	return nil
}

// validateLabelMap checks label keys and values one by one in key order,
// so that the errors come in the same order every time (the API server's
// come in map order).
func validateLabelMap(m map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(m) {
		errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: m[k]}, path)...)
	}
	return errs
}

// validateAnnotationMap checks annotation keys in key order, then the total
// size.
func validateAnnotationMap(m map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(m) {
		errs = append(errs, apimachineryvalidation.ValidateAnnotations(map[string]string{k: ""}, path)...)
	}
	if apimachineryvalidation.ValidateAnnotationsSize(m) != nil {
		errs = append(errs, field.TooLong(path, "", apimachineryvalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
