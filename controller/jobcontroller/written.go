package jobcontroller

import (
	"fmt"
	"strconv"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
)

// writtenJobs remembers, per Job, the resourceVersion of this controller's
// last status write that the Job informer has not shown yet. A sync on a
// cached Job older than that would decide again on a status it has already
// replaced: it would record the Suspended or Resumed event a second time
// and then meet a conflict. Upstream's controller (v1.36, with its
// StaleControllerConsistencyJob feature on by default) likewise does not
// sync a Job until its informers show its own writes; the pods' side of
// that is the memory's expectations here.
type writtenJobs struct {
	mu sync.Mutex
	m  map[types.NamespacedName]written
}

type written struct {
	uid types.UID
	rv  uint64
}

// wrote records that the status write of job returned job's
// resourceVersion.
func (w *writtenJobs) wrote(job *batchv1.Job) {
	rv, err := strconv.ParseUint(job.ResourceVersion, 10, 64)
	if err != nil {
		return // not a number: no order to wait for
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]written{}
	}
	key := types.NamespacedName{Namespace: job.Namespace, Name: job.Name}
	if prev, ok := w.m[key]; ok && prev.uid == job.UID && prev.rv >= rv {
		return
	}
	w.m[key] = written{uid: job.UID, rv: rv}
}

// stale returns an error if cached is older than the last status write
// recorded for it, and forgets the write once the cache shows it.
func (w *writtenJobs) stale(cached *batchv1.Job) error {
	key := types.NamespacedName{Namespace: cached.Namespace, Name: cached.Name}
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.m[key]
	if !ok {
		return nil
	}
	rv, err := strconv.ParseUint(cached.ResourceVersion, 10, 64)
	if last.uid != cached.UID || err != nil || rv >= last.rv {
		delete(w.m, key)
		return nil
	}
	return fmt.Errorf("the cached Job %s has resourceVersion %d, older than this controller's last status write (%d): waiting for the informer", key, rv, last.rv)
}

// forget drops what is recorded for the Job namespace/name.
func (w *writtenJobs) forget(namespace, name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, types.NamespacedName{Namespace: namespace, Name: name})
}
