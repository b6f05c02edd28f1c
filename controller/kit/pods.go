package kit

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/memory"
)

// PodIndex is the name of the pod index IndexerPods reads, to add with
// cache.Indexers{PodIndex: IndexPod}.
const PodIndex = "jobsync/controller-uid"

// PodIndexValues returns the values a pod is indexed under: the UID of its
// controller, or OrphansIn(its namespace) when it has none. A Job's pods
// and the orphans it may adopt are then found without scanning every pod.
func PodIndexValues(pod *corev1.Pod) []string {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return []string{string(ref.UID)}
	}
	return []string{OrphansIn(pod.Namespace)}
}

// IndexPod is PodIndexValues as a client-go cache.IndexFunc; objects that
// are not pods are not indexed.
func IndexPod(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	return PodIndexValues(pod), nil
}

// OrphansIn is the index value of the pods of namespace that have no
// controller. It has a prefix no UID has.
func OrphansIn(namespace string) string { return "orphans in " + namespace }

// PodLookup returns the pods of namespace indexed under value (see
// PodIndexValues).
type PodLookup func(namespace, value string) ([]*corev1.Pod, error)

// ListPods returns the pods of job: those it controls and the orphans of
// its namespace that its selector matches (a Job with an empty selector
// adopts none). The pods are the lookup's; ListPods copies none.
func ListPods(job *batchv1.Job, lookup PodLookup) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("the Job's selector: %w", err)
	}
	owned, err := lookup(job.Namespace, string(job.UID))
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, 0, len(owned))
	for _, p := range owned {
		if p.Namespace == job.Namespace {
			pods = append(pods, p)
		}
	}
	if sel.Empty() {
		return pods, nil
	}
	orphans, err := lookup(job.Namespace, OrphansIn(job.Namespace))
	if err != nil {
		return nil, err
	}
	for _, p := range orphans {
		if sel.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

// IndexerPods returns a memory.PodLister reading a client-go indexer that
// has the PodIndex index: the pods come straight from the cache, which
// jobsync.Reconcile does not modify.
func IndexerPods(idx cache.Indexer) memory.PodLister {
	lookup := func(_, value string) ([]*corev1.Pod, error) {
		objs, err := idx.ByIndex(PodIndex, value)
		if err != nil {
			return nil, err
		}
		pods := make([]*corev1.Pod, 0, len(objs))
		for _, o := range objs {
			if p, ok := o.(*corev1.Pod); ok {
				pods = append(pods, p)
			}
		}
		return pods, nil
	}
	return func(job *batchv1.Job) ([]*corev1.Pod, error) { return ListPods(job, lookup) }
}
