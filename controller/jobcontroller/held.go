package jobcontroller

import (
	"fmt"
	"reflect"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// heldPods is the controller's own copy of the pod informer's pods, kept
// by the pod event handlers, so that a sync of a wide Job hands Reconcile
// the pods that changed state since they were last sorted and the sums of
// the others (jobsync's package documentation, "Jobs of many pods"),
// rather than every pod of the Job.
//
// Pods are grouped as the pod index groups them (kit.PodIndexValues: by
// the UID of their controller, or as orphans of their namespace). A group
// is sorted for its Job at the Job's first sync: each pod goes to the
// settled count (jobsync.SettledFilter), the active set
// (jobsync.ActivePods), the set of succeeded pods waiting to be recorded
// (jobsync.SucceededPods), or the live pods listed in Snapshot.Pods; every
// later event of one of its pods sorts that pod again. Groups no sync has
// sorted (another controller's pods, orphans) hold every pod as live.
//
// The copy is fed in the order of the informer's events, by the same
// handler that lowers the memory and before it lowers it, so what a sync
// reads here is the informer's cache as it was some events ago: never
// behind the memory, which is read first (see Controller.sync). That also
// holds through relists (pods gone meanwhile arrive as
// DeletedFinalStateUnknown, found by UID wherever they were kept) and at
// start-up (the workers start once the handler has had every pod of the
// informer's first list).
//
// One mutex guards every group: the handlers take it for one pod, a sync
// from its listing to the end of Reconcile, which reads the sets.
type heldPods struct {
	opts jobsync.Options

	mu     sync.Mutex
	groups map[groupKey]*podGroup
	where  map[types.UID]groupKey // the group of each pod held
}

// groupKey names a group: a namespace and the pod index value
// (kit.PodIndexValues) of its pods.
type groupKey struct{ namespace, value string }

func groupOf(p *corev1.Pod) groupKey {
	return groupKey{p.Namespace, kit.PodIndexValues(p)[0]}
}

// podClass is where a pod of a group is kept.
type podClass uint8

const (
	classLive podClass = iota
	classSettled
	classActive
	classDone
)

type heldPod struct {
	pod   *corev1.Pod
	class podClass
}

// podGroup holds the pods of one group. job is the Job it was last sorted
// for, nil while no sync has sorted it (every pod is then live).
type podGroup struct {
	pods    map[types.UID]heldPod
	live    map[types.UID]*corev1.Pod
	settled int

	job    *batchv1.Job
	settle *jobsync.SettledFilter
	active *jobsync.ActivePods
	done   *jobsync.SucceededPods
}

func newHeldPods(opts jobsync.Options) *heldPods {
	return &heldPods{opts: opts, groups: map[groupKey]*podGroup{}, where: map[types.UID]groupKey{}}
}

// add handles a pod informer add event.
func (h *heldPods) add(obj any) {
	if p, ok := obj.(*corev1.Pod); ok {
		h.put(p)
	}
}

// update handles a pod informer update event. The pod may have moved to
// another group (a changed controller reference) or be another pod of the
// same name (another UID): put finds where its UID was kept.
func (h *heldPods) update(oldObj, curObj any) {
	p, ok := curObj.(*corev1.Pod)
	if !ok {
		return
	}
	if old, ok := oldObj.(*corev1.Pod); ok && old.UID != p.UID {
		// A relist found another pod under the name: the old one is gone.
		h.mu.Lock()
		h.drop(old.UID)
		h.mu.Unlock()
	}
	h.put(p)
}

// remove handles a pod informer delete event; obj is a pod or a tombstone
// holding one. The pod is found by UID, whatever group it was kept in.
func (h *heldPods) remove(obj any) {
	p := memory.PodFrom(obj)
	if p == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(p.UID)
}

// put keeps p in place of any pod with its UID.
func (h *heldPods) put(p *corev1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := groupOf(p)
	if at, ok := h.where[p.UID]; ok {
		if at == key {
			g := h.groups[key]
			if cur := g.pods[p.UID]; cur.pod.ResourceVersion == p.ResourceVersion && cur.pod.ResourceVersion != "" {
				return // a resync: nothing changed
			}
			g.unsort(p.UID, g.pods[p.UID].class)
			g.pods[p.UID] = heldPod{p, g.sort(p)}
			return
		}
		h.drop(p.UID)
	}
	g := h.groups[key]
	if g == nil {
		g = &podGroup{pods: map[types.UID]heldPod{}, live: map[types.UID]*corev1.Pod{}}
		h.groups[key] = g
	}
	g.pods[p.UID] = heldPod{p, g.sort(p)}
	h.where[p.UID] = key
}

// drop lets go of the pod with uid, if held, and of its group once empty.
// h.mu is held.
func (h *heldPods) drop(uid types.UID) {
	key, ok := h.where[uid]
	if !ok {
		return
	}
	delete(h.where, uid)
	g := h.groups[key]
	g.unsort(uid, g.pods[uid].class)
	delete(g.pods, uid)
	if len(g.pods) == 0 {
		delete(h.groups, key)
	}
}

// sort files p, not yet filed, and returns where.
func (g *podGroup) sort(p *corev1.Pod) podClass {
	switch {
	case g.job == nil:
	case g.settle.Settled(p):
		g.settled++
		return classSettled
	case g.active.Put(p):
		return classActive
	case g.done.Put(p):
		return classDone
	}
	g.live[p.UID] = p
	return classLive
}

// unsort takes the pod with uid out of where it was filed.
func (g *podGroup) unsort(uid types.UID, c podClass) {
	switch c {
	case classSettled:
		g.settled--
	case classActive:
		g.active.Delete(uid)
	case classDone:
		g.done.Delete(uid)
	default:
		delete(g.live, uid)
	}
}

// sortFor sorts the group's pods for job, unless it is sorted for a Job
// that files every pod alike.
func (g *podGroup) sortFor(job *batchv1.Job, opts jobsync.Options) {
	if g.job != nil && sameSettling(g.job, job) {
		return
	}
	g.job = job
	g.settle = jobsync.NewSettledFilter(job, opts)
	g.active = jobsync.NewActivePods(job)
	g.done = jobsync.NewSucceededPods(job, opts)
	g.live, g.settled = make(map[types.UID]*corev1.Pod, len(g.live)), 0
	for uid, hp := range g.pods {
		g.pods[uid] = heldPod{hp.pod, g.sort(hp.pod)}
	}
}

// sameSettling reports whether two versions of a Job file every pod alike:
// the fields SettledFilter, ActivePods and SucceededPods read, which the
// API server never changes for one Job.
func sameSettling(a, b *batchv1.Job) bool {
	return a.UID == b.UID && a.Name == b.Name && a.Namespace == b.Namespace &&
		(a.Spec.PodFailurePolicy == nil) == (b.Spec.PodFailurePolicy == nil) &&
		reflect.DeepEqual(a.Spec.Selector, b.Spec.Selector) &&
		reflect.DeepEqual(a.Spec.CompletionMode, b.Spec.CompletionMode)
}

// heldSnapshot is what a sync hands Reconcile from the held pods.
type heldSnapshot struct {
	pods    []*corev1.Pod
	active  *jobsync.ActivePods
	done    *jobsync.SucceededPods
	settled int
}

// snapshot returns the pods of job as kit.ListPods finds them (those it
// controls in its namespace, and the orphans there its selector matches),
// the controlled ones filed: the live ones and the orphans listed, the
// others in the sets or counted. h.mu is held, and stays held while
// Reconcile reads the sets. The listed slice is the caller's.
func (h *heldPods) snapshot(job *batchv1.Job) (heldSnapshot, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return heldSnapshot{}, fmt.Errorf("the Job's selector: %w", err)
	}
	var s heldSnapshot
	g := h.groups[groupKey{job.Namespace, string(job.UID)}]
	var orphans *podGroup
	if !sel.Empty() {
		orphans = h.groups[groupKey{job.Namespace, kit.OrphansIn(job.Namespace)}]
	}
	n := 0
	if g != nil {
		g.sortFor(job, h.opts)
		n += len(g.live)
	}
	if orphans != nil {
		n += len(orphans.live)
	}
	s.pods = make([]*corev1.Pod, 0, n)
	if g != nil {
		for _, p := range g.live {
			s.pods = append(s.pods, p)
		}
		s.active, s.done, s.settled = g.active, g.done, g.settled
	}
	if orphans != nil {
		for _, p := range orphans.live {
			if sel.Matches(labels.Set(p.Labels)) {
				s.pods = append(s.pods, p)
			}
		}
	}
	return s, nil
}

// listed returns snap, taken from snapshot for its Job, with the pods of
// its sets listed in Pods and the sets gone: a snapshot Reconcile decides
// alike, which stays valid once h.mu is let go. h.mu is held.
func (h *heldPods) listed(snap jobsync.Snapshot) jobsync.Snapshot {
	g := h.groups[groupKey{snap.Job.Namespace, string(snap.Job.UID)}]
	if g == nil || snap.Active.Len()+snap.Succeeded.Len() == 0 {
		snap.Active, snap.Succeeded = nil, nil
		return snap
	}
	pods := make([]*corev1.Pod, len(snap.Pods), len(snap.Pods)+snap.Active.Len()+snap.Succeeded.Len())
	copy(pods, snap.Pods)
	for _, hp := range g.pods {
		if hp.class == classActive || hp.class == classDone {
			pods = append(pods, hp.pod)
		}
	}
	snap.Pods, snap.Active, snap.Succeeded = pods, nil, nil
	return snap
}

// len returns the number of pods held, for tests.
func (h *heldPods) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.where)
}
