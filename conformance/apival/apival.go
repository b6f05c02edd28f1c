// Package apival runs the v1.36 API server's own code for Jobs on batch/v1
// objects: the create path (defaulting, selector generation, validation)
// that the generators use to make Jobs as a cluster would store them, and
// the status-update validation that every status a plan writes must pass.
package apival

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install" // batch/v1 <-> internal conversions and defaults
	_ "k8s.io/kubernetes/pkg/apis/core/install"  // the pod template inside a Job
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
)

var scheme = legacyscheme.Scheme

func toInternal(in *batchv1.Job) (*batch.Job, error) {
	out := &batch.Job{}
	if err := scheme.Convert(in.DeepCopy(), out, nil); err != nil {
		return nil, fmt.Errorf("converting Job %s to the internal version: %w", in.Name, err)
	}
	return out, nil
}

func toV1(in *batch.Job) (*batchv1.Job, error) {
	out := &batchv1.Job{}
	if err := scheme.Convert(in, out, nil); err != nil {
		return nil, fmt.Errorf("converting Job %s to batch/v1: %w", in.Name, err)
	}
	return out, nil
}

// CreateJob does to job what the API server does to a Job it is asked to
// create: defaulting (as on decode), selector and label generation, clearing
// of the status, and validation. It returns the stored object, or an error
// listing the validation failures.
func CreateJob(job *batchv1.Job) (*batchv1.Job, error) {
	j := job.DeepCopy()
	scheme.Default(j)
	internal, err := toInternal(j)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	jobregistry.Strategy.PrepareForCreate(ctx, internal)
	if errs := jobregistry.Strategy.Validate(ctx, internal); len(errs) > 0 {
		return nil, fmt.Errorf("job %s is invalid: %w", job.Name, errs.ToAggregate())
	}
	return toV1(internal)
}

// ValidateStatusUpdate checks a status write as the API server's status
// subresource does: old is the Job as stored, status the one written.
func ValidateStatusUpdate(old *batchv1.Job, status *batchv1.JobStatus) field.ErrorList {
	updated := old.DeepCopy()
	updated.Status = *status.DeepCopy()
	scheme.Default(updated)
	oldI, err := toInternal(old)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	newI, err := toInternal(updated)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	ctx := context.Background()
	jobregistry.StatusStrategy.PrepareForUpdate(ctx, newI, oldI)
	return jobregistry.StatusStrategy.ValidateUpdate(ctx, newI, oldI)
}
