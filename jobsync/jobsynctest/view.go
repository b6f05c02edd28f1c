package jobsynctest

import (
	"reflect"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// view is the controller's informer cache. The pods are kept in a slice
// (with each pod's position by UID) rather than listed from a map and
// sorted at every sync: a sync of a Job with a million pods lists them in
// one copy. The order is the order the pods arrived in, changed by
// removals (the last pod takes the place of the one removed): it is
// deterministic for a seed, and Reconcile decides the same whatever it is.
//
// The view also sorts each pod, as it arrives, into settled
// (jobsync.SettledFilter), held (an active pod of the Job, kept in a
// jobsync.ActivePods), done (a succeeded pod of a NonIndexed Job still
// carrying the tracking finalizer, kept in a jobsync.SucceededPods) or live
// (any other): a sync hands Reconcile the live pods, the two sets and the
// number of settled ones. In a long Job nearly every pod ends settled, a
// wide one runs thousands of active pods at every sync, and a wide
// NonIndexed one keeps thousands of succeeded pods waiting for upstream's
// cap of 500 recorded a sync; a sync then reads the pods that changed state
// since they were sorted, the sets' sums and the first pods of the done
// ones, not every pod the Job has.
type view struct {
	job  *batchv1.Job
	pods []*corev1.Pod
	at   map[types.UID]int // position in pods

	// settle is the filter of view.job's settled pods, made for settledFor
	// (a Job with the same UID, name, namespace, selector and pod failure
	// policy as view.job) and opts.
	settle     *jobsync.SettledFilter
	settledFor *batchv1.Job
	opts       jobsync.Options
	// held holds the active pods of the Job, done its succeeded pods still
	// carrying the tracking finalizer (both made for settledFor too).
	held *jobsync.ActivePods
	done *jobsync.SucceededPods
	// liveAt holds, for each position in pods, the pod's position in live,
	// or -1 when the pod is settled, or isHeld, or isDone; live holds the positions in pods of
	// the live pods, in the order they became live (their creation, most
	// often), with -1 for a pod gone from it since (holes, compacted once
	// they are half of live); settled counts the others. Reconcile decides
	// the same in any order, but not at the same speed: a pod's objects
	// were allocated in about the order the pods were created, and
	// reading them in that order lets the processor fetch memory ahead. At
	// a million pods the cache misses of the scan's first touch of each
	// pod are most of a sync's time; listing in creation order instead of
	// the order a swap-remove leaves took the NonIndexed lifecycle from
	// 189 s to 115-123 s (Indexed: 65 s, 69 s).
	liveAt  []int
	live    []int
	holes   int
	settled int

	buf []*corev1.Pod // the last listing, reused
}

// isHeld and isDone mark in view.liveAt a pod held in view.held and in
// view.done.
const (
	isHeld = -2
	isDone = -3
)

func newView(job *batchv1.Job, opts jobsync.Options, capacity int) view {
	v := view{pods: make([]*corev1.Pod, 0, capacity), at: make(map[types.UID]int, capacity), opts: opts}
	v.setJob(job)
	return v
}

// setJob changes the Job the view holds. Pods are sorted again only when
// what makes a pod settled changes (another Job under the key, or one that
// lost its pod failure policy): never, for a Job the API server keeps.
func (v *view) setJob(job *batchv1.Job) {
	v.job = job
	if v.settle != nil && sameSettling(v.settledFor, job) {
		return
	}
	v.settle, v.settledFor = jobsync.NewSettledFilter(job, v.opts), job
	v.held = jobsync.NewActivePods(job)
	v.done = jobsync.NewSucceededPods(job, v.opts)
	v.live, v.holes, v.settled = v.live[:0], 0, 0
	for i, p := range v.pods {
		v.liveAt[i] = -1
		v.sort(i, p)
	}
}

// sameSettling reports whether two versions of a Job settle and hold the
// same pods: the fields SettledFilter and ActivePods read, which the API
// server never changes.
func sameSettling(a, b *batchv1.Job) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID && a.Name == b.Name && a.Namespace == b.Namespace &&
		(a.Spec.PodFailurePolicy == nil) == (b.Spec.PodFailurePolicy == nil) &&
		reflect.DeepEqual(a.Spec.Selector, b.Spec.Selector) &&
		reflect.DeepEqual(a.Spec.CompletionMode, b.Spec.CompletionMode)
}

// sort puts the pod at position i, not yet sorted (liveAt[i] == -1, not
// counted as settled), among the settled, the held or the live pods.
func (v *view) sort(i int, p *corev1.Pod) {
	switch {
	case v.settle.Settled(p):
		v.settled++
	case v.held.Put(p):
		v.liveAt[i] = isHeld
	case v.done.Put(p):
		v.liveAt[i] = isDone
	default:
		v.liveAt[i] = len(v.live)
		v.live = append(v.live, i)
	}
}

// unsort takes the pod at position i out of the settled, the held or the
// live pods.
func (v *view) unsort(i int) {
	j := v.liveAt[i]
	if j == isHeld || j == isDone {
		v.held.Delete(v.pods[i].UID)
		v.done.Delete(v.pods[i].UID)
		v.liveAt[i] = -1
		return
	}
	if j < 0 {
		v.settled--
		return
	}
	v.live[j] = -1
	v.liveAt[i] = -1
	v.holes++
	if 2*v.holes > len(v.live) {
		v.compact()
	}
}

// compact drops the holes from live, keeping the order.
func (v *view) compact() {
	kept := v.live[:0]
	for _, i := range v.live {
		if i >= 0 {
			v.liveAt[i] = len(kept)
			kept = append(kept, i)
		}
	}
	v.live, v.holes = kept, 0
}

// get returns the pod with uid, nil when the view has none.
func (v *view) get(uid types.UID) *corev1.Pod {
	if i, ok := v.at[uid]; ok {
		return v.pods[i]
	}
	return nil
}

// put adds the pod or replaces the one with its UID.
func (v *view) put(p *corev1.Pod) {
	i, ok := v.at[p.UID]
	if ok {
		v.pods[i] = p
		switch j := v.liveAt[i]; {
		case j == isHeld && v.held.Put(p), j == isDone && v.done.Put(p):
			return // still held: the set has the new version
		case j == isHeld || j == isDone:
			v.liveAt[i] = -1 // let go by Put
		case j >= 0 && !v.settle.Settled(p) && !v.held.Put(p) && !v.done.Put(p):
			return // stays live, in its place
		default:
			// Taken by a Put above, if at all: sorted again below.
			v.held.Delete(p.UID)
			v.done.Delete(p.UID)
			v.unsort(i)
		}
	} else {
		i = len(v.pods)
		v.at[p.UID] = i
		v.pods = append(v.pods, p)
		v.liveAt = append(v.liveAt, -1)
	}
	v.sort(i, p)
}

// remove drops the pod with uid, if any.
func (v *view) remove(uid types.UID) {
	i, ok := v.at[uid]
	if !ok {
		return
	}
	v.unsort(i)
	last := len(v.pods) - 1
	if i != last {
		v.pods[i] = v.pods[last]
		v.at[v.pods[i].UID] = i
		v.liveAt[i] = v.liveAt[last]
		if j := v.liveAt[i]; j >= 0 {
			v.live[j] = i
		}
	}
	v.pods[last] = nil
	v.pods = v.pods[:last]
	v.liveAt = v.liveAt[:last]
	delete(v.at, uid)
}

// list returns the live pods of the view, the sets of held and done ones
// and the number of settled ones left out. The slice is the view's own
// buffer, overwritten by the next list, and the sets change with the next
// event: all stay valid for one sync.
func (v *view) list() ([]*corev1.Pod, *jobsync.ActivePods, *jobsync.SucceededPods, int) {
	v.buf = v.buf[:0]
	for _, i := range v.live {
		if i >= 0 {
			v.buf = append(v.buf, v.pods[i])
		}
	}
	return v.buf, v.held, v.done, v.settled
}

// all returns every pod of the view, settled ones included, in a slice of
// its own: what the checks compare Reconcile's plan against.
func (v *view) all() []*corev1.Pod {
	return append([]*corev1.Pod(nil), v.pods...)
}
