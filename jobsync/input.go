package jobsync

import (
	"fmt"
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// InputError is returned for a snapshot that Reconcile cannot decide on: a
// field that the API server would have defaulted or rejected, or pods that
// cannot belong to one consistent view of a cluster.
type InputError struct {
	Field string // a field path such as "job.spec.backoffLimit" or "pods[3]"
	Value any    // the offending value, when there is one
	Msg   string
}

func (e *InputError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s (got %v)", e.Field, e.Msg, e.Value)
}

func inputErr(field string, value any, msg string) error {
	return &InputError{Field: field, Value: value, Msg: msg}
}

// checkJob rejects Jobs that upstream's controller would crash on or that
// the API server would never store.
func checkJob(job *batchv1.Job) error {
	if job == nil {
		return inputErr("job", nil, "is nil")
	}
	spec := &job.Spec
	if spec.Parallelism == nil {
		return inputErr("job.spec.parallelism", nil, "is nil; the API server defaults it (see Default)")
	}
	if *spec.Parallelism < 0 {
		return inputErr("job.spec.parallelism", *spec.Parallelism, "must not be negative")
	}
	if spec.BackoffLimit == nil {
		return inputErr("job.spec.backoffLimit", nil, "is nil; the API server defaults it (see Default)")
	}
	if *spec.BackoffLimit < 0 {
		return inputErr("job.spec.backoffLimit", *spec.BackoffLimit, "must not be negative")
	}
	if spec.Completions != nil && *spec.Completions < 0 {
		return inputErr("job.spec.completions", *spec.Completions, "must not be negative")
	}
	if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion && spec.Completions == nil {
		return inputErr("job.spec.completions", nil, "is required for Indexed Jobs")
	}
	if spec.BackoffLimitPerIndex != nil && *spec.BackoffLimitPerIndex < 0 {
		return inputErr("job.spec.backoffLimitPerIndex", *spec.BackoffLimitPerIndex, "must not be negative")
	}
	if spec.ActiveDeadlineSeconds != nil && *spec.ActiveDeadlineSeconds <= 0 {
		return inputErr("job.spec.activeDeadlineSeconds", *spec.ActiveDeadlineSeconds, "must be positive")
	}
	st := &job.Status
	for _, c := range []struct {
		field string
		v     int32
	}{{"job.status.active", st.Active}, {"job.status.succeeded", st.Succeeded}, {"job.status.failed", st.Failed}} {
		if c.v < 0 {
			return inputErr(c.field, c.v, "must not be negative")
		}
	}
	if st.Ready != nil && *st.Ready < 0 {
		return inputErr("job.status.ready", *st.Ready, "must not be negative")
	}
	if st.Terminating != nil && *st.Terminating < 0 {
		return inputErr("job.status.terminating", *st.Terminating, "must not be negative")
	}
	if _, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		return inputErr("job.spec.selector", spec.Selector, err.Error())
	}
	return nil
}

// addCounts adds non-negative counts as upstream does in int32, failing
// instead of wrapping around.
func addCounts(field string, parts ...int) (int32, error) {
	var sum int64
	for _, p := range parts {
		sum += int64(p)
	}
	if sum > math.MaxInt32 {
		return 0, inputErr(field, sum, "does not fit in int32")
	}
	return int32(sum), nil
}

// claim is what the pod ownership rules decided for the snapshot's pods.
type claim struct {
	pods     []*corev1.Pod // the pods this sync works on
	adopt    []*corev1.Pod // orphans matching the selector, to adopt
	release  []*corev1.Pod // owned pods no longer matching the selector
	foreign  int           // pods of another controller or namespace, left alone
	orphaned int           // orphans that are not adopted
}

// claimPods applies upstream's ownership rules (ControllerRefManager): a pod
// controlled by the Job is kept while the selector matches it and released
// otherwise (unless the Job is being deleted); an orphan that matches the
// selector, is not being deleted and lives in the Job's namespace is adopted,
// unless the Job is being deleted; any other pod is not the Job's.
//
// Duplicate UIDs and nil pods are errors: no informer produces them.
func claimPods(job *batchv1.Job, pods []*corev1.Pod) (claim, error) {
	sel, _ := metav1.LabelSelectorAsSelector(job.Spec.Selector) // checked by checkJob
	var c claim
	c.pods = make([]*corev1.Pod, 0, len(pods))
	seen := make(map[types.UID]int, len(pods))
	deleting := job.DeletionTimestamp != nil
	for i, p := range pods {
		if p == nil {
			return claim{}, inputErr(fmt.Sprintf("pods[%d]", i), nil, "is nil")
		}
		if j, dup := seen[p.UID]; dup {
			return claim{}, inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), p.UID, fmt.Sprintf("is also the UID of pods[%d]", j))
		}
		seen[p.UID] = i
		if p.Namespace != job.Namespace {
			c.foreign++
			continue
		}
		ref := metav1.GetControllerOfNoCopy(p)
		matches := sel.Matches(labels.Set(p.Labels))
		switch {
		case ref != nil && ref.UID != job.UID:
			c.foreign++
		case ref != nil && matches:
			c.pods = append(c.pods, p)
		case ref != nil:
			if !deleting {
				c.release = append(c.release, p)
			}
		case deleting || !matches || p.DeletionTimestamp != nil:
			c.orphaned++
		default:
			c.adopt = append(c.adopt, p)
		}
	}
	return c, nil
}
