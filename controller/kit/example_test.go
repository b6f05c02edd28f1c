package kit_test

import (
	"context"
	"errors"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/kit"
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
