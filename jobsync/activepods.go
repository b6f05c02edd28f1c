package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// ActivePods holds active pods of one Job between syncs, with the sums a
// sync reads of them, so that a sync that deletes none of them reads none
// of them.
//
// Every sync must know how many pods of the Job are active (neither
// terminal nor being deleted), how many of them are ready and, for an
// Indexed Job, which indexes they hold. A Job that runs 100,000 pods at a
// time has 100,000 active pods at every sync, while most syncs only count
// and release the few pods that finished since the last one. A caller that
// keeps its pods by event (an informer handler, a simulator) puts each pod
// here when it changes (Put) and takes it out when it goes (Delete); it
// hands Reconcile the set in Snapshot.Active and the pods Put did not take
// in Snapshot.Pods. Reconcile then decides exactly as it would with every
// pod in Snapshot.Pods: it adds the set's sums to what it finds in Pods,
// and walks the set's pods only in a sync that must rank or delete active
// pods (scaling down, suspending, finishing, or mending the indexes of an
// Indexed Job).
//
// A pod is taken when the Job controls it (its controller reference names
// the Job), it lives in the Job's namespace, matches the Job's selector, is
// active and, for an Indexed Job, carries a completion index. What makes a
// pod acceptable are fields of the Job the API server never lets change
// (UID, name, namespace, selector, completion mode); a caller that may see
// another Job under the same key makes a new set (Reconcile refuses a set
// made for a Job of another UID, namespace, completion mode or pod failure
// policy).
//
// Pods are told apart by UID. The set keeps the pointers it is given and
// reads each pod when it is put: a pod it holds must not be modified (an
// informer's objects never are); a changed pod is put again, as a new
// object. A pod is held or listed in Snapshot.Pods, never both: Reconcile
// refuses a snapshot that lists a pod whose UID the set holds (the pod put
// and listed too, or a newer copy listed while the old one stays held),
// which would count twice. ActivePods is not safe for concurrent use: put
// and delete between syncs, not during one. Reconcile only reads it.
type ActivePods struct {
	// job is the Job the set was made for: its UID, name, namespace,
	// selector and completion mode, which the API server never changes,
	// are what the set reads of it.
	job     *batchv1.Job
	indexed bool
	match   *labelMatcher
	// ownerKind is the kind a pod's controller reference must name (see
	// Options.Owner); Reconcile refuses the set under another.
	ownerKind string

	pods []heldPod
	at   map[types.UID]int // position in pods

	ready int
	// restarts is the sum of the container restart counts of the pods in
	// the Pending or Running phase, in int32 as upstream sums them (see
	// pastBackoffLimitOnFailure): a sum that wraps around is the same
	// whatever the order of its terms.
	restarts int32
	indexes  indexTally
}

// heldPod is a pod of the set with what the set read of it when it was
// put, so that taking it out reads the pod no more.
type heldPod struct {
	pod      *corev1.Pod
	index    int // indexes.Unknown for NonIndexed Jobs
	ready    bool
	restarts int32
}

// NewActivePods returns an empty set of active pods of job, to be handed
// to Reconcile with the same Job (or later versions of it) and an Options
// whose Owner is zero (batch/v1 Job). For a nil Job, the set takes no pod.
func NewActivePods(job *batchv1.Job) *ActivePods {
	return NewActivePodsFor(job, Options{})
}

// NewActivePodsFor is NewActivePods for Reconcile called with opts: the set
// takes the pods whose controller reference names opts.Owner's kind.
func NewActivePodsFor(job *batchv1.Job, opts Options) *ActivePods {
	a := &ActivePods{at: make(map[types.UID]int), indexes: newIndexTally(), ownerKind: opts.withDefaults().Owner.Kind}
	if job != nil {
		a.job, a.indexed = job, isIndexed(job)
		a.match = newLabelMatcher(job.Spec.Selector)
	}
	return a
}

// Put takes pod p into the set, in place of any pod it holds with p's UID,
// and reports true; or, when p is not an active pod the set takes (see
// ActivePods), it lets go of any pod it holds with p's UID and reports
// false: the caller then keeps p in Snapshot.Pods. A nil pod is never
// taken.
func (a *ActivePods) Put(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	h, ok := a.accept(p)
	if !ok {
		a.Delete(p.UID)
		return false
	}
	if i, held := a.at[p.UID]; held {
		a.subtract(a.pods[i])
		a.pods[i] = h
	} else {
		a.at[p.UID] = len(a.pods)
		a.pods = append(a.pods, h)
	}
	a.addUp(h)
	return true
}

// Delete lets go of the pod with the given UID, and reports whether the
// set held one.
func (a *ActivePods) Delete(uid types.UID) bool {
	i, held := a.at[uid]
	if !held {
		return false
	}
	a.subtract(a.pods[i])
	last := len(a.pods) - 1
	if i != last {
		a.pods[i] = a.pods[last]
		a.at[a.pods[i].pod.UID] = i
	}
	a.pods[last] = heldPod{}
	a.pods = a.pods[:last]
	delete(a.at, uid)
	return true
}

// Len returns the number of pods the set holds. A nil set holds none.
func (a *ActivePods) Len() int {
	if a == nil {
		return 0
	}
	return len(a.pods)
}

// Has reports whether the set holds a pod with the given UID.
func (a *ActivePods) Has(uid types.UID) bool {
	if a == nil {
		return false
	}
	_, held := a.at[uid]
	return held
}

// get returns the held pod with the given UID, nil for none (and from a
// nil set).
func (a *ActivePods) get(uid types.UID) *corev1.Pod {
	if a == nil {
		return nil
	}
	if i, held := a.at[uid]; held {
		return a.pods[i].pod
	}
	return nil
}

// holdsIndex reports whether a pod held has completion index ix. A nil set
// holds none.
func (a *ActivePods) holdsIndex(ix int) bool { return a != nil && a.indexed && a.indexes.has(ix) }

// accept reads what the set keeps of p, and whether the set takes it.
func (a *ActivePods) accept(p *corev1.Pod) (heldPod, bool) {
	if a.job == nil || !isActive(p) || p.Namespace != a.job.Namespace {
		return heldPod{}, false
	}
	ref := controllerOf(p)
	if ref == nil || !isJobRef(ref, a.job, a.ownerKind) || !a.match.matches(p.Labels) {
		return heldPod{}, false
	}
	h := heldPod{pod: p, index: indexes.Unknown, ready: podorder.IsReady(p)}
	if a.indexed {
		if h.index = indexes.Of(p.Annotations); h.index == indexes.Unknown {
			return heldPod{}, false
		}
	}
	if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
		h.restarts = restartSum(p)
	}
	return h, true
}

func (a *ActivePods) addUp(h heldPod) {
	if h.ready {
		a.ready++
	}
	a.restarts += h.restarts
	if a.indexed {
		a.indexes.add(h.index)
	}
}

func (a *ActivePods) subtract(h heldPod) {
	if h.ready {
		a.ready--
	}
	a.restarts -= h.restarts
	if a.indexed {
		a.indexes.remove(h.index)
	}
}

// restartSum is the sum of a pod's container restart counts, init
// containers' included, in int32 as upstream sums them.
func restartSum(p *corev1.Pod) int32 {
	var n int32
	for _, s := range p.Status.InitContainerStatuses {
		n += s.RestartCount
	}
	for _, s := range p.Status.ContainerStatuses {
		n += s.RestartCount
	}
	return n
}

// indexTally is a multiset of completion indexes: the set of the indexes
// held (a bitset grown to the largest index below denseIndexes, a map
// beyond) and the count of extra pods of each index held more than once.
type indexTally struct {
	indexSet
	extra map[int]int
}

func newIndexTally() indexTally { return indexTally{indexSet: indexSet{limit: denseIndexes / 64}} }

func (t *indexTally) add(i int) {
	if !t.set(i) {
		if t.extra == nil {
			t.extra = make(map[int]int)
		}
		t.extra[i]++
	}
}

func (t *indexTally) remove(i int) {
	switch n := t.extra[i]; {
	case n > 1:
		t.extra[i] = n - 1
	case n == 1:
		delete(t.extra, i)
	default:
		t.clear(i)
	}
}

// repeated reports whether some index is held more than once.
func (t *indexTally) repeated() bool { return len(t.extra) > 0 }
