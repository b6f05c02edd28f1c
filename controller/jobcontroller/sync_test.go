package jobcontroller

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// eventAfterList is the pod cache of a sync during which an informer event
// lands: the first listing of the Job's pods returns what the cache held,
// and then the event is delivered (the cache updated first, then the
// handlers, as client-go's informers do).
type eventAfterList struct {
	cache.Indexer
	event func()
	fired bool
}

func (i *eventAfterList) ByIndex(name, value string) ([]any, error) {
	out, err := i.Indexer.ByIndex(name, value)
	if !i.fired {
		i.fired = true
		i.event()
	}
	return out, err
}

// TestSyncReadsTheMemoryBeforeThePods: a sync takes the Job's memory before
// it lists the pods, as upstream's syncJob checks its expectations before
// listing. Taken after, a pod created by the previous sync that the cache
// and the memory both learn of between the two reads would be missing from
// the list while its creation counted as observed: the sync would create a
// pod too many.
func TestSyncReadsTheMemoryBeforeThePods(t *testing.T) {
	const name = "example.com/jobsync"
	client := fake.NewClientset()
	// The listing way: the held pods are fed in the handler, before the
	// memory is lowered (TestHeldPodsDecideAsTheListedOnes).
	c, err := New(client, Options{ControllerName: name, Recorder: record.NewFakeRecorder(100), ScanPods: true})
	if err != nil {
		t.Fatal(err)
	}
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid", ResourceVersion: "1"},
		Spec: batchv1.JobSpec{
			Parallelism: new(int32(2)), Completions: new(int32(2)), ManagedBy: new(name),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job": "pi"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"job": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			},
		},
	})
	if err := client.Tracker().Add(job); err != nil {
		t.Fatal(err)
	}
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Add(job); err != nil {
		t.Fatal(err)
	}
	pod := func(podName string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: podName, UID: types.UID("uid-" + podName), ResourceVersion: "2",
				Labels: job.Spec.Template.Labels, Finalizers: []string{c.finalizer},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
			Spec:   job.Spec.Template.Spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
	}
	first, second := pod("pi-a"), pod("pi-b")
	if err := c.podIndex.Add(first); err != nil {
		t.Fatal(err)
	}
	// The previous sync created both pods; the cache has shown one so far.
	now := time.Now()
	exp := expectations.Expectations{}.ExpectCreations(2, now).CreationObserved()
	c.store.Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, jobsync.Plan{Expectations: exp})

	c.podIndex = &eventAfterList{Indexer: c.podIndex, event: func() {
		if err := c.podIndex.(*eventAfterList).Indexer.Add(second); err != nil {
			t.Error(err)
		}
		c.observer.PodAdded(second)
	}}
	if err := c.sync(context.Background(), "ns/pi"); err != nil {
		t.Fatal(err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "pods" {
			t.Errorf("the sync created a pod although both of the Job's pods exist: it read the memory after listing the pods")
		}
	}
}
