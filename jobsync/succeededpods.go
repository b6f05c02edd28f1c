package jobsync

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/heap"
)

// SucceededPods holds succeeded pods of one NonIndexed Job that still carry
// the tracking finalizer, between syncs, in the order a sync records them.
//
// Upstream records at most 500 finished pods a sync in
// status.uncountedTerminatedPods before it removes their finalizers. When
// pods succeed faster than that, as the pods of a wide Job do, finished
// pods wait in a backlog, and every sync reads all of them: any may be the
// next recorded. A caller that keeps its pods by event puts each pod here
// when it changes (Put) and takes it out when it goes (Delete); it hands
// Reconcile the set in Snapshot.Succeeded and the pods Put did not take in
// Snapshot.Pods. Reconcile then decides exactly as it would with every pod
// in Snapshot.Pods: it counts the set's pods, looks up the few it must
// know of by UID (those in uncountedTerminatedPods and those whose
// finalizer removal is expected) and reads only the first ones in the
// order of recording, as many as the sync can record. The set keeps its
// pods in a heap on that order (creation time, then name, then UID), so a
// put or delete costs O(log n).
//
// A pod is taken when the Job controls it (its controller reference names
// the Job), it lives in the Job's namespace, matches the Job's selector,
// has succeeded and carries the tracking finalizer of the Options the set
// was made with, and the Job is NonIndexed without a pod failure policy.
// (An Indexed Job records a succeeded pod by its index, and its backlog
// stays small; a pod failure policy reads every failed pod.) What makes a
// pod acceptable are fields of the Job the API server never lets change;
// a caller that may see another Job under the same key, or uses other
// Options, makes a new set (Reconcile refuses a set made for a Job of
// another UID, completion mode or pod failure policy, or for another
// tracking finalizer).
//
// Pods are told apart by UID. The set keeps the pointers it is given: a
// pod it holds must not be modified (an informer's objects never are); a
// changed pod is put again, as a new object. A pod is held or listed in
// Snapshot.Pods, never both: Reconcile refuses a snapshot that lists a pod
// whose UID the set holds (a newer copy listed without its finalizer while
// the old one stays held would count again). SucceededPods is not safe for
// concurrent use: put and delete between syncs, not during one. Reconcile
// only reads it.
type SucceededPods struct {
	// job is the Job the set was made for: its UID, name, namespace,
	// selector, completion mode and pod failure policy, which the API
	// server never changes, are what the set reads of it.
	job       *batchv1.Job
	finalizer string
	ownerKind string // see Options.Owner
	takes     bool   // job is NonIndexed, without a pod failure policy
	match     *labelMatcher

	heap []*heldDone             // a min-heap on compareByAge's keys
	at   map[types.UID]*heldDone // the same entries, by UID
}

// heldDone is a pod of a SucceededPods with the keys of compareByAge,
// copied out of the pod so that the heap's comparisons read no pod, and its
// position in the heap.
type heldDone struct {
	created time.Time
	name    string
	uid     types.UID
	pod     *corev1.Pod
	pos     int
}

// compareDone is compareByAge on the entries' keys.
func compareDone(a, b *heldDone) int {
	if c := a.created.Compare(b.created); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return strings.Compare(string(a.uid), string(b.uid))
}

// NewSucceededPods returns an empty set of succeeded pods of job, to be
// handed to Reconcile with the same Job (or later versions of it) and
// opts' tracking finalizer. For a nil Job, an Indexed one, or one with a
// pod failure policy, the set takes no pod.
func NewSucceededPods(job *batchv1.Job, opts Options) *SucceededPods {
	opts = opts.withDefaults()
	s := &SucceededPods{at: make(map[types.UID]*heldDone), finalizer: opts.TrackingFinalizer, ownerKind: opts.Owner.Kind}
	if job != nil {
		s.job = job
		s.takes = !isIndexed(job) && job.Spec.PodFailurePolicy == nil
		s.match = newLabelMatcher(job.Spec.Selector)
	}
	return s
}

// Put takes pod p into the set, in place of any pod it holds with p's UID,
// and reports true; or, when p is not a pod the set takes (see
// SucceededPods), it lets go of any pod it holds with p's UID and reports
// false: the caller then keeps p in Snapshot.Pods (or, once its finalizer
// is gone, counts it as settled). A nil pod is never taken.
func (s *SucceededPods) Put(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	if !s.accepts(p) {
		s.Delete(p.UID)
		return false
	}
	if e, held := s.at[p.UID]; held {
		*e = heldDone{created: p.CreationTimestamp.Time, name: p.Name, uid: p.UID, pod: p, pos: e.pos}
		s.fix(e.pos)
		return true
	}
	e := &heldDone{created: p.CreationTimestamp.Time, name: p.Name, uid: p.UID, pod: p, pos: len(s.heap)}
	s.at[p.UID] = e
	s.heap = append(s.heap, e)
	s.up(e.pos)
	return true
}

// Delete lets go of the pod with the given UID, and reports whether the
// set held one.
func (s *SucceededPods) Delete(uid types.UID) bool {
	e, held := s.at[uid]
	if !held {
		return false
	}
	i, last := e.pos, len(s.heap)-1
	if i != last {
		s.swap(i, last)
	}
	s.heap[last] = nil
	s.heap = s.heap[:last]
	delete(s.at, uid)
	if i != last {
		s.fix(i)
	}
	return true
}

// Len returns the number of pods the set holds. A nil set holds none.
func (s *SucceededPods) Len() int {
	if s == nil {
		return 0
	}
	return len(s.heap)
}

// Has reports whether the set holds a pod with the given UID.
func (s *SucceededPods) Has(uid types.UID) bool {
	if s == nil {
		return false
	}
	_, held := s.at[uid]
	return held
}

func (s *SucceededPods) accepts(p *corev1.Pod) bool {
	if !s.takes || p.Status.Phase != corev1.PodSucceeded || p.Namespace != s.job.Namespace || !hasFinalizer(p, s.finalizer) {
		return false
	}
	ref := controllerOf(p)
	return ref != nil && isJobRef(ref, s.job, s.ownerKind) && s.match.matches(p.Labels)
}

// get returns the held pod with the given UID, nil for none (and from a
// nil set).
func (s *SucceededPods) get(uid types.UID) *corev1.Pod {
	if s == nil {
		return nil
	}
	if e, held := s.at[uid]; held {
		return e.pod
	}
	return nil
}

// first returns, in order, the first n held pods whose finalizer removal
// is not expected (the others are not candidates for release), or all of
// them when fewer: a walk of the heap's top through a heap of its own, at
// O((n + skipped) log n).
func (s *SucceededPods) first(n int, expected expectations.UIDSet) []*corev1.Pod {
	if n <= 0 || len(s.heap) == 0 {
		return nil
	}
	out := make([]*corev1.Pod, 0, min(n, len(s.heap)))
	frontier := []int{0} // positions in s.heap, a min-heap on their pods
	byPod := func(a, b int) int { return compareDone(s.heap[a], s.heap[b]) }
	for len(frontier) > 0 && len(out) < n {
		top := frontier[0]
		last := len(frontier) - 1
		frontier[0] = frontier[last]
		frontier = frontier[:last]
		heap.Down(frontier, 0, byPod)
		if e := s.heap[top]; !expected.Has(e.uid) {
			out = append(out, e.pod)
		}
		for _, c := range [2]int{2*top + 1, 2*top + 2} {
			if c < len(s.heap) {
				frontier = append(frontier, c)
				heap.Up(frontier, len(frontier)-1, byPod)
			}
		}
	}
	return out
}

func (s *SucceededPods) less(i, j int) bool { return compareDone(s.heap[i], s.heap[j]) < 0 }

func (s *SucceededPods) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.heap[i].pos, s.heap[j].pos = i, j
}

func (s *SucceededPods) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			return
		}
		s.swap(i, parent)
		i = parent
	}
}

func (s *SucceededPods) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(s.heap) {
			return
		}
		if r := c + 1; r < len(s.heap) && s.less(r, c) {
			c = r
		}
		if !s.less(c, i) {
			return
		}
		s.swap(i, c)
		i = c
	}
}

// fix restores the heap order around position i after its pod changed.
func (s *SucceededPods) fix(i int) {
	s.up(i)
	s.down(i)
}
