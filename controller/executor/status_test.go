package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// TestStatusWriteConflicts: a status write refused as a conflict is sent
// again on the Job read afresh only when another writer changed nothing the
// plan was decided on (labels here); a change of spec, status or deletion
// returns the conflict for the next sync to decide again, and so does a
// conflict that outlasts StatusConflictRetries. Other errors are returned
// at once.
func TestStatusWriteConflicts(t *testing.T) {
	jobsGVR := schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "batch", Resource: "jobs"}, "pi", errors.New("the object has been modified"))
	tests := []struct {
		name string
		// change is what the other writer does to the stored Job before
		// the first write is refused.
		change func(*batchv1.Job)
		// refusals is how many writes in a row are refused (-1: all).
		refusals  int
		err       error
		wantCalls []string
		wantErr   func(error) bool
	}{{
		name:      "labels changed: written again",
		change:    func(j *batchv1.Job) { j.Labels = map[string]string{"other": "writer"} },
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"update jobs/status", "get jobs", "update jobs/status"},
	}, {
		name:      "annotations changed twice: written on the third try",
		change:    func(j *batchv1.Job) { j.Annotations = map[string]string{"other": "writer"} },
		refusals:  2,
		err:       conflict,
		wantCalls: []string{"update jobs/status", "get jobs", "update jobs/status", "get jobs", "update jobs/status"},
	}, {
		name:      "spec changed: conflict returned",
		change:    func(j *batchv1.Job) { j.Spec.Suspend = new(true) },
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"update jobs/status", "get jobs"},
		wantErr:   apierrors.IsConflict,
	}, {
		name:      "status changed by another writer: conflict returned",
		change:    func(j *batchv1.Job) { j.Status.Failed = 7 },
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"update jobs/status", "get jobs"},
		wantErr:   apierrors.IsConflict,
	}, {
		name:      "Job being deleted: conflict returned",
		change:    func(j *batchv1.Job) { j.DeletionTimestamp = new(j.CreationTimestamp); j.Finalizers = []string{"x"} },
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"update jobs/status", "get jobs"},
		wantErr:   apierrors.IsConflict,
	}, {
		name:     "conflicts that never end: given up after the retries",
		change:   func(j *batchv1.Job) { j.Labels = map[string]string{"other": "writer"} },
		refusals: -1,
		err:      conflict,
		wantCalls: []string{"update jobs/status", "get jobs", "update jobs/status", "get jobs", "update jobs/status",
			"get jobs", "update jobs/status"},
		wantErr: apierrors.IsConflict,
	}, {
		name:      "server error: returned at once",
		refusals:  1,
		err:       apierrors.NewInternalError(errors.New("etcd is away")),
		wantCalls: []string{"update jobs/status"},
		wantErr:   apierrors.IsInternalError,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := fakeJob()
			client := fake.NewClientset(job)
			refused := 0
			client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if tc.refusals >= 0 && refused >= tc.refusals {
					return false, nil, nil
				}
				if refused == 0 && tc.change != nil {
					stored := job.DeepCopy()
					tc.change(stored)
					if err := client.Tracker().Update(jobsGVR, stored, stored.Namespace); err != nil {
						t.Fatal(err)
					}
				}
				refused++
				return true, nil, tc.err
			})
			plan := jobsync.Plan{InterimStatus: &batchv1.JobStatus{Succeeded: 1}}
			x := &Executor{Client: client, Recorder: record.NewFakeRecorder(10), TrackingFinalizer: "example.com/t"}
			res, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, plan))
			if diff := cmp.Diff(tc.wantCalls, calls(client)); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tc.wantErr != nil {
				if !tc.wantErr(err) || res.InterimStatusWritten {
					t.Errorf("Execute returned %v (status written %v), want the write's error and no status written", err, res.InterimStatusWritten)
				}
				return
			}
			if err != nil || !res.InterimStatusWritten {
				t.Fatalf("Execute returned %v (status written %v), want the status written", err, res.InterimStatusWritten)
			}
			got, _ := client.Tracker().Get(jobsGVR, job.Namespace, job.Name)
			stored := got.(*batchv1.Job)
			if stored.Status.Succeeded != 1 || (stored.Labels["other"] == "" && stored.Annotations["other"] == "") {
				t.Errorf("stored Job %+v: want the plan's status beside the other writer's metadata", stored.ObjectMeta)
			}
		})
	}
}
