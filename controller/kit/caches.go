package kit

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
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
	// Owner is the kind that owns the pods (jobsync.Options.Owner): only
	// controller references to this kind resolve. The zero value means
	// batch/v1 Job.
	Owner schema.GroupVersionKind
	// View turns an object of the owner's informer into the Job it is
	// seen as, nil for none; Handlers' Job handlers call it. Nil means the
	// objects are *batchv1.Job (or tombstones of them). For a custom
	// resource from a dynamic informer, jobview.FromUnstructured, then
	// jobspec.Prepare.
	View func(obj any) *batchv1.Job
}

// owner is Owner, batch/v1 Job when unset.
func (c JobCache) owner() schema.GroupVersionKind {
	if c.Owner.Empty() {
		return jobsync.DefaultOwner()
	}
	return c.Owner
}

// view is View, or the *batchv1.Job an informer event carries.
func (c JobCache) view(obj any) *batchv1.Job {
	if c.View != nil {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		return c.View(obj)
	}
	return memory.JobFrom(obj)
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
	if ref == nil || ref.Kind != c.owner().Kind {
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
