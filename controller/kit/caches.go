package kit

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/jobsync/jobsync/controller/memory"
)

// JobCache reads the Jobs of the informer cache, whichever informers the
// controller uses (client-go listers: ListerJobs).
type JobCache struct {
	// Get returns the Job namespace/name, or nil.
	Get memory.JobLookup
	// List returns the Jobs of namespace.
	List func(namespace string) ([]*batchv1.Job, error)
	// Runs reports whether the controller runs job (its spec.managedBy).
	Runs func(job *batchv1.Job) bool
}

// ListerJobs is a JobCache on a client-go Job lister.
func ListerJobs(l batchlisters.JobLister, runs func(*batchv1.Job) bool) JobCache {
	return JobCache{
		Get: func(namespace, name string) *batchv1.Job {
			job, err := l.Jobs(namespace).Get(name)
			if err != nil {
				return nil
			}
			return job
		},
		List: func(namespace string) ([]*batchv1.Job, error) { return l.Jobs(namespace).List(labels.Everything()) },
		Runs: runs,
	}
}

// Resolve returns the Job a controller reference names if the cache holds
// it with the same UID and the controller runs it, or nil.
func (c JobCache) Resolve(namespace string, ref *metav1.OwnerReference) *batchv1.Job {
	if ref == nil || ref.Kind != "Job" {
		return nil
	}
	job := c.Get(namespace, ref.Name)
	if job == nil || job.UID != ref.UID || !c.Runs(job) {
		return nil
	}
	return job
}

// PodCache reads the pods of the informer cache (client-go listers:
// ListerPods).
type PodCache struct {
	// Get returns the pod namespace/name, or an error that
	// apierrors.IsNotFound recognises when there is none.
	Get func(namespace, name string) (*corev1.Pod, error)
	// Select returns the pods of namespace that sel matches.
	Select func(namespace string, sel labels.Selector) ([]*corev1.Pod, error)
}

// ListerPods is a PodCache on a client-go pod lister.
func ListerPods(l corelisters.PodLister) PodCache {
	return PodCache{
		Get:    func(namespace, name string) (*corev1.Pod, error) { return l.Pods(namespace).Get(name) },
		Select: func(namespace string, sel labels.Selector) ([]*corev1.Pod, error) { return l.Pods(namespace).List(sel) },
	}
}

// Finished reports whether job has its Complete or Failed condition.
func Finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
