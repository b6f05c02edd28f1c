package jobview

import (
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FromUnstructured returns u seen as a Job: u's metadata, .spec as a
// JobSpec and .status as a JobStatus, and u's apiVersion and kind in the
// TypeMeta (so that an event recorded on the view names the resource).
// Fields the Job types lack are ignored; a field of the Job's name with a
// value of another shape (a string where the JobSpec has a number) is an
// error. u is not modified and the view shares nothing with it.
func FromUnstructured(u *unstructured.Unstructured) (*batchv1.Job, error) {
	if u == nil {
		return nil, fmt.Errorf("jobview: no object")
	}
	job := &batchv1.Job{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), job); err != nil {
		return nil, fmt.Errorf("jobview: %s %s/%s seen as a Job: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return job, nil
}

// ToUnstructured returns the resource of kind gvk whose view is job: its
// metadata, job's spec as .spec and job's status as .status. It is what a
// test or a tool creates to get a resource that FromUnstructured reads back
// as job (up to the TypeMeta).
func ToUnstructured(job *batchv1.Job, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if job == nil {
		return nil, fmt.Errorf("jobview: no Job")
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(job)
	if err != nil {
		return nil, fmt.Errorf("jobview: %s/%s as %s: %w", job.Namespace, job.Name, gvk.Kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// StatusPatch returns the JSON merge patch of a resource's status
// subresource that turns the JobStatus fields of its .status from from
// into to, with resourceVersion as its precondition: the API server
// refuses it as a conflict if the resource changed since it was read at
// that version. Fields of .status that JobStatus lacks are not in the
// patch, so the resource keeps them. A field set in from and unset in to
// is deleted (null), at every depth, since a merge patch merges objects
// rather than replacing them; lists such as conditions are replaced whole.
func StatusPatch(resourceVersion string, from, to *batchv1.JobStatus) ([]byte, error) {
	if from == nil {
		from = &batchv1.JobStatus{}
	}
	if to == nil {
		to = &batchv1.JobStatus{}
	}
	old, err := runtime.DefaultUnstructuredConverter.ToUnstructured(from)
	if err != nil {
		return nil, fmt.Errorf("jobview: the status read: %w", err)
	}
	cur, err := runtime.DefaultUnstructuredConverter.ToUnstructured(to)
	if err != nil {
		return nil, fmt.Errorf("jobview: the status to write: %w", err)
	}
	body := map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"status":   deletions(old, cur),
	}
	return json.Marshal(body)
}

// deletions returns cur with a null for every key of old that cur lacks,
// recursing where both hold an object.
func deletions(old, cur map[string]any) map[string]any {
	out := make(map[string]any, len(cur)+len(old))
	for k, v := range cur {
		out[k] = v
	}
	for k, ov := range old {
		cv, present := cur[k]
		if !present {
			out[k] = nil
			continue
		}
		om, oldIsObject := ov.(map[string]any)
		cm, curIsObject := cv.(map[string]any)
		if oldIsObject && curIsObject {
			out[k] = deletions(om, cm)
		}
	}
	return out
}
