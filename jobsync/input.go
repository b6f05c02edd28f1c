package jobsync

import (
	"fmt"
	"math"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InputError is returned for a snapshot that Reconcile cannot decide on: a
// field that the API server would have defaulted or rejected, or pods that
// cannot belong to one consistent view of a cluster.
type InputError struct {
	Field string // a field path such as "job.spec.backoffLimit" or "pods[3]"
	Value any    // the offending value, when there is one
	Msg   string
}

// Error names the field, the value when there is one, and what is wrong
// with it.
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
		return inputErr("job.spec.parallelism", nil, "is nil; the API server defaults it (see jobspec.Default)")
	}
	if *spec.Parallelism < 0 {
		return inputErr("job.spec.parallelism", *spec.Parallelism, "must not be negative")
	}
	if spec.BackoffLimit == nil {
		return inputErr("job.spec.backoffLimit", nil, "is nil; the API server defaults it (see jobspec.Default)")
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
	// Upstream would run such a Job with neither the per-index budget
	// (which needs indexes) nor the Job-wide pod-failure backoff (skipped
	// whenever backoffLimitPerIndex is set); the API server rejects it.
	if spec.BackoffLimitPerIndex != nil && !isIndexed(job) {
		return inputErr("job.spec.backoffLimitPerIndex", *spec.BackoffLimitPerIndex, "is only supported for Indexed Jobs")
	}
	// Zero is accepted, as the API server accepts it: such a Job fails with
	// DeadlineExceeded at its first unsuspended sync.
	if spec.ActiveDeadlineSeconds != nil && *spec.ActiveDeadlineSeconds < 0 {
		return inputErr("job.spec.activeDeadlineSeconds", *spec.ActiveDeadlineSeconds, "must not be negative")
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
