package kit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// A pod informer's indexer with the kit's index lists a Job's pods: those
// it controls and the orphans its selector matches.
func ExampleIndexerPods() {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{kit.PodIndex: kit.IndexPod})
	// With an informer: podInformer.Informer().AddIndexers(cache.Indexers{kit.PodIndex: kit.IndexPod})
	job := testJob("ns", "pi", "job-uid")
	_ = idx.Add(testPod("ns", "pi-0", job, nil))
	_ = idx.Add(testPod("ns", "adoptable", nil, map[string]string{"job": "pi"}))
	_ = idx.Add(testPod("ns", "unrelated", nil, map[string]string{"app": "web"}))

	pods, err := kit.IndexerPods(idx)(job) // a memory.PodLister, for Store.Snapshot
	fmt.Println(names(pods), err)
	// Output: [ns/adoptable ns/pi-0] <nil>
}

// The guard holds a sync back while the cache shows a Job older than the
// controller's own last status write of it.
func ExampleStaleGuard() {
	var guard kit.StaleGuard
	written := testJob("ns", "pi", "job-uid")
	written.ResourceVersion = "42"
	guard.Wrote(written) // executor.Result.Job after a sync

	cached := written.DeepCopy()
	cached.ResourceVersion = "41"
	fmt.Println(guard.Check(cached) != nil) // retry rate-limited
	cached.ResourceVersion = "42"
	fmt.Println(guard.Check(cached))
	// Output:
	// true
	// <nil>
}

// A Job jobsync cannot sync gets a Warning event and is not retried.
func ExampleHandleInputError() {
	rec := record.NewFakeRecorder(1)
	x := &executor.Executor{Recorder: rec}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi"}} // not defaulted
	_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job}, jobsync.Options{})
	err = kit.HandleInputError(context.Background(), x, job, err)
	fmt.Println(err, len(rec.Events))
	fmt.Println(kit.HandleInputError(context.Background(), x, job, errors.New("timeout")))
	// Output:
	// <nil> 1
	// timeout
}

// The handlers go on a controller's informers; here they are called by
// hand with the events an informer would deliver. A pod of a Job wakes
// the Job after the batch period; once the Job is deleted, its pod,
// still carrying the tracking finalizer, is offered to Orphans, whose
// workers (Orphans.Run) take the finalizer off.
func ExampleHandlers() {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	jobInformer, podInformer := factory.Batch().V1().Jobs(), factory.Core().V1().Pods()
	runs := func(job *batchv1.Job) bool { return job.Spec.ManagedBy == nil }
	jobs := kit.ListerJobs(jobInformer.Lister(), runs)
	orphans := kit.NewOrphans(client, finalizer, jobs, kit.ListerPods(podInformer.Lister()))
	defer orphans.ShutDown()
	h := kit.Handlers{
		Observer: memory.Observer{Store: memory.NewStore(), Finalizer: finalizer, Jobs: jobs.Get},
		Jobs:     jobs,
		Orphans:  orphans,
		Enqueue:  func(job *batchv1.Job, delay time.Duration) { fmt.Println("wake", job.Name, "after", delay) },
	}
	// With informers: jobInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
	//	AddFunc: h.AddJob, UpdateFunc: h.UpdateJob, DeleteFunc: h.DeleteJob}), and the same for pods.
	job := testJob("ns", "pi", "job-uid")
	pod := testPod("ns", "pi-0", job, map[string]string{"job": "pi"})
	_ = jobInformer.Informer().GetStore().Add(job)
	_ = podInformer.Informer().GetStore().Add(pod)

	h.AddJob(job)
	h.AddPod(pod)
	_ = jobInformer.Informer().GetStore().Delete(job)
	h.DeleteJob(job)
	fmt.Println("orphans queued:", orphans.Len())
	// Output:
	// wake pi after 0s
	// wake pi after 1s
	// wake pi after 0s
	// orphans queued: 1
}
