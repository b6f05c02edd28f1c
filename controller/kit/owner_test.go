package kit_test

import (
	"context"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/jobview"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

var trainJob = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}

// ownedBy gives pod a controller reference to the resource of kind owner
// that job stands for.
func ownedBy(pod *corev1.Pod, job *batchv1.Job, owner schema.GroupVersionKind) *corev1.Pod {
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(job, owner)}
	return pod
}

// TestKitResolvesTheConfiguredOwnerKind: with JobCache.Owner set to a
// custom kind, a pod whose controller reference names that kind resolves
// to the resource seen as a Job, and one naming a Job does not; Orphans
// takes the finalizer off the pods of a resource that is gone and leaves
// the pods of a live one, and of any other kind, alone.
func TestKitResolvesTheConfiguredOwnerKind(t *testing.T) {
	live, gone := testJob("ns", "live", "live-uid"), testJob("ns", "gone", "gone-uid")
	ofLive := ownedBy(testPod("ns", "of-live", nil, nil), live, trainJob)
	ofGone := ownedBy(testPod("ns", "of-gone", nil, nil), gone, trainJob)
	jobKindOfGone := testPod("ns", "job-kind", gone, nil) // a batch/v1 Job's, gone too
	f := newFixtureFor(t, trainJob, live, ofLive, ofGone, jobKindOfGone)

	jobs := f.handlers.Jobs
	if got := jobs.Resolve("ns", metav1.GetControllerOfNoCopy(ofLive)); got == nil || got.UID != "live-uid" {
		t.Errorf("the TrainJob's pod resolves to %v, want the live TrainJob", got)
	}
	jobPod := testPod("ns", "p", live, nil)
	if got := jobs.Resolve("ns", metav1.GetControllerOfNoCopy(jobPod)); got != nil {
		t.Errorf("a pod naming a Job of the TrainJob's name and UID resolves to %v, want nil", got.Name)
	}

	for _, key := range []string{"ns/of-live", "ns/of-gone", "ns/job-kind"} {
		if err := f.orphans.Release(context.Background(), key); err != nil {
			t.Errorf("Release(%s): %v", key, err)
		}
	}
	if got, want := f.patched(), []string{"ns/of-gone"}; !slices.Equal(got, want) {
		t.Errorf("finalizers taken off %v, want %v", got, want)
	}
}

// TestHandlersTakeTheOwnersObjects: with a View, the Job handlers take the
// objects of the owner's informer (unstructured resources, tombstones):
// an added resource is woken, a pod of the resource lowers its memory, and
// its deletion forgets the memory and offers its pods to Orphans.
func TestHandlersTakeTheOwnersObjects(t *testing.T) {
	job := testJob("ns", "pi", "tj-uid")
	u, err := jobview.ToUnstructured(job, trainJob)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureFor(t, trainJob, job)
	f.handlers.AddJob(u)
	if d, ok := f.woken["ns/pi"]; !ok || d != 0 {
		t.Errorf("the added resource was woken %v (%v), want at once", ok, d)
	}
	clear(f.woken)
	f.handlers.AddJob(job) // not the informer's kind of object: the View says no Job
	if len(f.woken) != 0 {
		t.Errorf("an object the View does not read woke %v", f.woken)
	}
	now := time.Now()
	f.store.Begin(jobsync.Snapshot{Job: job, Now: now}, jobsync.Options{Owner: trainJob},
		jobsync.Plan{Expectations: jobsync.Snapshot{}.Expectations.ExpectCreations(1, now)})
	pod := ownedBy(testPod("ns", "a", nil, map[string]string{"job": "pi"}), job, trainJob)
	f.handlers.AddPod(pod)
	snap, _ := f.store.Snapshot(job, now, memory.NoPods)
	if !snap.Expectations.Satisfied(now, time.Hour) {
		t.Errorf("the creation of the resource's pod was not observed: %+v", snap.Expectations)
	}

	clear(f.woken)
	if err := f.podIdx.Add(pod); err != nil {
		t.Fatal(err)
	}
	if err := f.jobIdx.Delete(job); err != nil {
		t.Fatal(err)
	}
	f.handlers.DeleteJob(cache.DeletedFinalStateUnknown{Key: "ns/pi", Obj: u})
	if d, ok := f.woken["ns/pi"]; !ok || d != 0 {
		t.Errorf("the deleted resource was woken %v (%v), want at once", ok, d)
	}
	if f.store.Len() != 0 {
		t.Error("the deletion of the resource kept its memory")
	}
	if got, want := f.queued(), []string{"ns/a"}; !slices.Equal(got, want) {
		t.Errorf("offered to Orphans %v, want %v", got, want)
	}
}
