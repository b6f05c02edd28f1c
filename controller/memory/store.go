package memory

import (
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Store holds the memory of many Jobs. It is safe for concurrent use: the
// informer's handlers lower it while workers sync. Two syncs of the same
// Job must not overlap (a workqueue guarantees it).
//
// Memory is keyed by namespace and name and stamped with the Job's UID: a
// Job deleted and created again under the same name starts with empty
// memory, and observations about the old Job's pods never lower the new
// one's.
type Store struct {
	mu   sync.Mutex
	jobs map[types.NamespacedName]*entry
}

type entry struct {
	uid     types.UID
	exp     expectations.Expectations
	backoff backoff.Record
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{jobs: make(map[types.NamespacedName]*entry)}
}

func keyOf(job *batchv1.Job) types.NamespacedName {
	return types.NamespacedName{Namespace: job.Namespace, Name: job.Name}
}

// PodLister lists the pods of job from the caller's cache: those it
// controls and the orphans its selector matches.
type PodLister func(job *batchv1.Job) ([]*corev1.Pod, error)

// Snapshot returns the snapshot of one sync of job: the memory kept for
// this Job (empty if none is kept, or if what is kept belongs to an earlier
// Job of the same name), then the pods list returns, and the clock reading
// now. It fails only when list does.
//
// The memory is read before the pods are listed, and Snapshot takes a
// lister rather than pods so that no other order can be written: an
// informer event delivered between the two reads is then in the list while
// the memory still waits for it, which only holds the sync back. Read the
// other way round, a pod whose finalizer removal was observed in between
// shows its finalizer while the memory no longer expects the removal, and
// it is counted a second time (seen at 10,000 pods: 10,000 successes
// counted for at most 9,992 pods); a pod whose creation was observed in
// between is missing while its creation counts as observed, and one pod
// too many is created.
func (s *Store) Snapshot(job *batchv1.Job, now time.Time, list PodLister) (jobsync.Snapshot, error) {
	snap := jobsync.Snapshot{Job: job, Now: now}
	s.mu.Lock()
	if e := s.jobs[keyOf(job)]; e != nil && e.uid == job.UID {
		snap.Expectations = e.exp
		snap.Backoff = cloneBackoff(e.backoff)
	}
	s.mu.Unlock()
	pods, err := list(job)
	if err != nil {
		return jobsync.Snapshot{}, err
	}
	snap.Pods = pods
	return snap, nil
}

// NoPods is a PodLister for a Job that has no pods yet, or for tests.
func NoPods(*batchv1.Job) ([]*corev1.Pod, error) { return nil, nil }

// Memory is what the Store keeps for one Job.
type Memory struct {
	Expectations expectations.Expectations
	Backoff      backoff.Record
}

// Get returns the memory kept for the Job namespace/name with uid, and
// whether there is any.
func (s *Store) Get(namespace, name string, uid types.UID) (Memory, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.jobs[types.NamespacedName{Namespace: namespace, Name: name}]
	if e == nil || e.uid != uid {
		return Memory{}, false
	}
	return Memory{Expectations: e.exp, Backoff: cloneBackoff(e.backoff)}, true
}

// Forget drops the memory of the Job namespace/name, whatever its UID, as
// upstream does once the Job is gone from its informer.
func (s *Store) Forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.jobs, types.NamespacedName{Namespace: namespace, Name: name})
}

// Len returns the number of Jobs with memory kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.jobs)
}

// update applies f to the memory of the Job namespace/name if it is kept
// for uid. Observations about a Job with no memory change nothing, as
// upstream's lowering of absent expectations changes nothing.
func (s *Store) update(key types.NamespacedName, uid types.UID, f func(*entry)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[key]; e != nil && e.uid == uid {
		f(e)
	}
}

// cloneBackoff copies the record's failure time, so that what the store
// hands out and what it keeps share no memory. (Expectations need no copy:
// their set of pending finalizer removals is immutable.)
func cloneBackoff(b backoff.Record) backoff.Record {
	if b.LastFailureTime != nil {
		t := *b.LastFailureTime
		b.LastFailureTime = &t
	}
	return b
}
