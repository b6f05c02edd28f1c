package executor

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// OnPodWrite hears of every pod a create or patch returned, and of
// nothing else (a status write is not a pod write).
func TestOnPodWriteHearsCreatesAndPatches(t *testing.T) {
	job := fakeJob()
	done := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "done", UID: "done-uid", Finalizers: []string{"example.com/t"}}}
	client := fake.NewClientset(job, done)
	var mu sync.Mutex
	var heard []string
	x := &Executor{Client: client, Recorder: record.NewFakeRecorder(10), TrackingFinalizer: "example.com/t",
		OnPodWrite: func(pod *corev1.Pod) {
			mu.Lock()
			defer mu.Unlock()
			heard = append(heard, pod.Name)
		}}
	plan := jobsync.Plan{
		Creations:         []jobsync.PodCreation{{Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new"}}}},
		FinalizerRemovals: []jobsync.FinalizerRemoval{{Pod: jobsync.PodRef{Namespace: "ns", Name: "done", UID: "done-uid"}}},
		Status:            &job.Status,
	}
	res, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, plan))
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if res.Created != 1 || res.FinalizersRemoved != 1 || !res.StatusWritten {
		t.Fatalf("Execute did %+v, want one creation, one finalizer removal and the status", res)
	}
	sort.Strings(heard)
	if diff := cmp.Diff([]string{"done", "new"}, heard); diff != "" {
		t.Errorf("pods heard of (-want +got):\n%s", diff)
	}
}
