package executor

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/jobsync/jobsync/controller/jobview"
)

// StatusWriter writes the status of the object that owns a Job's pods,
// seen as a Job (a batch/v1 Job, or a custom resource that embeds a
// JobSpec: see jobsync.Options.Owner), and reads that object afresh. The
// executor reads it afresh after a conflicting status write, to tell a
// conflict with a change of metadata only (the write is sent again) from
// one with a change the plan depends on, and before adopting pods.
type StatusWriter interface {
	// UpdateStatus writes status through the object's status subresource,
	// on condition that the object is still at base's resourceVersion (a
	// conflict otherwise), and returns the object as written, seen as a
	// Job. base is the object as last read, seen as a Job.
	UpdateStatus(ctx context.Context, base *batchv1.Job, status *batchv1.JobStatus) (*batchv1.Job, error)
	// Get reads the object namespace/name from the API server, not a
	// cache, seen as a Job.
	Get(ctx context.Context, namespace, name string) (*batchv1.Job, error)
}

// JobStatusWriter is the StatusWriter of batch/v1 Jobs, through the typed
// client: the Executor's default.
func JobStatusWriter(client kubernetes.Interface) StatusWriter { return jobStatus{client} }

type jobStatus struct{ client kubernetes.Interface }

func (w jobStatus) UpdateStatus(ctx context.Context, base *batchv1.Job, status *batchv1.JobStatus) (*batchv1.Job, error) {
	job := base.DeepCopy()
	job.Status = *status.DeepCopy()
	return w.client.BatchV1().Jobs(base.Namespace).UpdateStatus(ctx, job, metav1.UpdateOptions{})
}

func (w jobStatus) Get(ctx context.Context, namespace, name string) (*batchv1.Job, error) {
	return w.client.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
}

// DynamicStatusWriter is the StatusWriter of a custom resource whose .spec
// embeds JobSpec fields and whose .status holds JobStatus fields, served
// as resource with a status subresource, through the dynamic client. The
// status is written as a JSON merge patch of the JobStatus fields, with
// base's resourceVersion as its precondition (see jobview.StatusPatch), so
// the resource's own status fields are kept; objects are seen as Jobs by
// jobview.FromUnstructured.
func DynamicStatusWriter(client dynamic.Interface, resource schema.GroupVersionResource) StatusWriter {
	return dynamicStatus{client: client, resource: resource}
}

type dynamicStatus struct {
	client   dynamic.Interface
	resource schema.GroupVersionResource
}

func (w dynamicStatus) UpdateStatus(ctx context.Context, base *batchv1.Job, status *batchv1.JobStatus) (*batchv1.Job, error) {
	if base.ResourceVersion == "" {
		// Without a precondition the patch would overwrite whatever
		// another writer stored since base was read.
		return nil, fmt.Errorf("writing the status of %s %s/%s: no resourceVersion to write on", w.resource.Resource, base.Namespace, base.Name)
	}
	body, err := jobview.StatusPatch(base.ResourceVersion, &base.Status, status)
	if err != nil {
		return nil, err
	}
	u, err := w.client.Resource(w.resource).Namespace(base.Namespace).Patch(ctx, base.Name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil {
		return nil, err
	}
	return jobview.FromUnstructured(u)
}

func (w dynamicStatus) Get(ctx context.Context, namespace, name string) (*batchv1.Job, error) {
	u, err := w.client.Resource(w.resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return jobview.FromUnstructured(u)
}
