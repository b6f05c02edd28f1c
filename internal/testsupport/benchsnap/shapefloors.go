package benchsnap

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/internal/heap"
	"github.com/jobsync/jobsync/jobsync"
)

// The shape floors: for each shape that acts, the least work any faithful
// reimplementation must do on that shape's snapshot. Each is SemanticFloor's
// reads (one pass, fused) plus exactly what upstream's rules force that
// shape to read or write beyond them, done with the cheapest correct
// algorithm we know, and ending in the part of the plan the shape changes,
// built as the plan holds it (TestShapeFloorsMatchReconcile checks that it
// equals Reconcile's plan for the same snapshot, so a floor cannot do less
// than the result needs). What they leave out, the plan's few fixed-size
// parts (status copies, conditions, events, notes, the expectations'
// counters), is small beside what they measure and is not charged to them.
//
// They cover the snapshots of this package (every pod the Job's own,
// labelled, none deleting, no pod failure policy, nothing uncounted or
// pending in the expectations, no repeated or invalid index): on any other
// input they return ok false rather than a wrong result.
//
// Indexed Jobs must read each active pod's completion index on every sync
// that manages pods (upstream deletes pods with a repeated or out-of-range
// index first, whatever the count), which SemanticFloor leaves out: the
// shape floors read it.

// ShapeFloor is one shape floor: Run does the floor's work on a snapshot
// and returns what it built (for the benchmark to keep alive).
type ShapeFloor struct {
	// Shape is the name of the Shape it is the floor of.
	Shape string
	// Run does the work and reports whether the snapshot is one it covers.
	Run func(s jobsync.Snapshot) (result any, ok bool)
}

// ShapeFloors are the floors of the shapes that act, in the order of
// Shapes.
var ShapeFloors = []ShapeFloor{
	{Shape: "Tracking", Run: func(s jobsync.Snapshot) (any, bool) { return TrackingFloor(s) }},
	{Shape: "ScaleDown", Run: func(s jobsync.Snapshot) (any, bool) { return ScaleDownFloor(s) }},
	{Shape: "Suspend", Run: func(s jobsync.Snapshot) (any, bool) { return SuspendFloor(s) }},
	{Shape: "Create", Run: func(s jobsync.Snapshot) (any, bool) { return CreateFloor(s) }},
}

// owned is SemanticFloor's ownership test: the pod is in a namespace, its
// controller reference names the Job and it carries the Job's selector
// label.
func owned(p *corev1.Pod, uid types.UID) bool {
	if p.Namespace == "" {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.UID == uid && p.Labels[batchv1.ControllerUidLabel] == string(uid)
}

func indexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

// completionIndex reads the index annotation as upstream does
// (strconv.Atoi, negative is none).
func completionIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

func hasFinalizer(p *corev1.Pod) bool {
	for _, f := range p.Finalizers {
		if f == batchv1.JobTrackingFinalizer {
			return true
		}
	}
	return false
}

// readyCondition is the Ready condition's status and last transition,
// found in the one walk of the conditions that SemanticFloor makes anyway.
func readyCondition(p *corev1.Pod) (bool, metav1.Time) {
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue, c.LastTransitionTime
		}
	}
	return false, metav1.Time{}
}

// indexBits marks the active indexes below completions; set reports a
// repeat.
type indexBits []uint64

func (b indexBits) set(ix int) (fresh bool) {
	w, m := ix/64, uint64(1)<<(ix%64)
	fresh = b[w]&m == 0
	b[w] |= m
	return fresh
}

func (b indexBits) has(ix int) bool { return b[ix/64]&(uint64(1)<<(ix%64)) != 0 }

// --- ScaleDown and Suspend: upstream's deletion order -----------------------

// floorRank is what upstream's deletion order (controller.ActivePods, made
// total as podorder makes it) reads of a pod, in the fields that decide it
// for distinct creation times; the tie-breaks after the creation time
// (index, adoption, name, UID) are read from the pod only when two pods tie
// that far, which no pod of these snapshots does.
type floorRank struct {
	assigned          bool
	phase             int8
	ready             bool
	finalizer         bool // not ranked: read here so that no pod is read twice
	readyZero         bool
	createdZero       bool
	restarts, sidecar int32
	readySec, crSec   int64
	readyNsec, crNsec int32
	index             int32
	pod               *corev1.Pod
}

func phaseRank(p corev1.PodPhase) int8 {
	switch p {
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 0
}

// rankFloor reads the ranking fields of an active pod; ready and its
// transition come from the caller's walk of the conditions.
func rankFloor(p *corev1.Pod, ready bool, readyAt metav1.Time, ix int) floorRank {
	r := floorRank{
		assigned: p.Spec.NodeName != "",
		phase:    phaseRank(p.Status.Phase),
		ready:    ready,
		index:    int32(ix),
		pod:      p,
	}
	if ready {
		if readyAt.IsZero() {
			r.readyZero = true
		} else {
			r.readySec, r.readyNsec = readyAt.Unix(), int32(readyAt.Nanosecond())
		}
	}
	if c := p.CreationTimestamp; c.IsZero() {
		r.createdZero = true
	} else {
		r.crSec, r.crNsec = c.Unix(), int32(c.Nanosecond())
	}
	for i := range p.Status.ContainerStatuses {
		r.restarts = max(r.restarts, p.Status.ContainerStatuses[i].RestartCount)
	}
	for i := range p.Status.InitContainerStatuses {
		s := &p.Status.InitContainerStatuses[i]
		for j := range p.Spec.InitContainers {
			c := &p.Spec.InitContainers[j]
			if c.Name == s.Name && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				r.sidecar = max(r.sidecar, s.RestartCount)
			}
		}
	}
	return r
}

// laterFirst is negative when (aZero, aSec, aNsec) is the later time, the
// zero time counting as the latest.
func laterFirst(aZero bool, aSec int64, aNsec int32, bZero bool, bSec int64, bNsec int32) int {
	if aZero != bZero {
		if aZero {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(bSec, aSec); c != 0 {
		return c
	}
	return cmp.Compare(bNsec, aNsec)
}

// compareFloorRanks is the deletion order (podorder.Less's rules).
func compareFloorRanks(a, b *floorRank) int {
	if a.assigned != b.assigned {
		if !a.assigned {
			return -1
		}
		return 1
	}
	if a.phase != b.phase {
		return int(a.phase) - int(b.phase)
	}
	if a.ready != b.ready {
		if !a.ready {
			return -1
		}
		return 1
	}
	if a.ready {
		if c := laterFirst(a.readyZero, a.readySec, a.readyNsec, b.readyZero, b.readySec, b.readyNsec); c != 0 {
			return c
		}
	}
	if a.restarts != b.restarts {
		return cmp.Compare(b.restarts, a.restarts)
	}
	if a.sidecar != b.sidecar {
		return cmp.Compare(b.sidecar, a.sidecar)
	}
	if c := laterFirst(a.createdZero, a.crSec, a.crNsec, b.createdZero, b.crSec, b.crNsec); c != 0 {
		return c
	}
	if a.index != b.index {
		return cmp.Compare(a.index, b.index)
	}
	aAdopted, bAdopted := metav1.GetControllerOfNoCopy(a.pod) == nil, metav1.GetControllerOfNoCopy(b.pod) == nil
	if aAdopted != bAdopted {
		if !aAdopted {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.pod.Name, b.pod.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.pod.UID), string(b.pod.UID))
}

// activeRanks is the fused pass of ScaleDown's and Suspend's floors: the
// semantic floor's reads, and each active pod's rank (and, for an Indexed
// Job, its index, checked for repeats). keep, when positive, bounds the
// ranks kept to the first keep in the deletion order (a max-heap); the
// ranks come back unsorted. ok is false for a snapshot the floors do not
// cover.
func activeRanks(s jobsync.Snapshot, keep int) (ranks []floorRank, active, ready int, ok bool) {
	job := s.Job
	ix := indexed(job)
	var bits indexBits
	completions := 0
	if ix {
		completions = int(*job.Spec.Completions)
		bits = make(indexBits, (completions+63)/64)
	}
	capacity := len(s.Pods)
	if keep > 0 {
		capacity = keep
	}
	ranks = make([]floorRank, 0, capacity)
	var ptrs []*floorRank
	later := func(a, b *floorRank) int { return compareFloorRanks(b, a) }
	for _, p := range s.Pods {
		if !owned(p, job.UID) {
			return nil, 0, 0, false
		}
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			return nil, 0, 0, false
		}
		active++
		i := -1
		if ix {
			if i = completionIndex(p); i < 0 || i >= completions || !bits.set(i) {
				return nil, 0, 0, false
			}
		}
		isReady, at := readyCondition(p)
		if isReady {
			ready++
		}
		r := rankFloor(p, isReady, at, i)
		r.finalizer = hasFinalizer(p)
		switch {
		case keep <= 0 || len(ranks) < keep:
			ranks = append(ranks, r)
			if len(ranks) == keep {
				ptrs = make([]*floorRank, keep)
				for k := range ranks {
					ptrs[k] = &ranks[k]
				}
				heap.Init(ptrs, later)
			}
		case compareFloorRanks(&r, ptrs[0]) < 0:
			*ptrs[0] = r
			heap.Down(ptrs, 0, later)
		}
	}
	return ranks, active, ready, true
}

// deletions sorts the ranks into the deletion order and emits one deletion
// each, the Ready and finalizer flags taken from the rank: no pod is read
// again in deletion order, which would cost a cache miss per pod.
func deletions(ranks []floorRank, reason string) []jobsync.PodDeletion {
	// Sorting pointers moves 8 bytes a swap instead of the rank's 64.
	ptrs := make([]*floorRank, len(ranks))
	for k := range ranks {
		ptrs[k] = &ranks[k]
	}
	slices.SortFunc(ptrs, compareFloorRanks)
	out := make([]jobsync.PodDeletion, len(ptrs))
	for k, r := range ptrs {
		p := r.pod
		out[k] = jobsync.PodDeletion{
			Pod:             jobsync.PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID},
			RemoveFinalizer: r.finalizer,
			Ready:           r.ready,
			Reason:          reason,
		}
	}
	return out
}

// Deleted is what ScaleDownFloor and SuspendFloor build: the plan's
// deletions, and the active and ready pods counted before them.
type Deleted struct {
	Deletions     []jobsync.PodDeletion
	Active, Ready int
}

// ScaleDownFloor is the floor of a scale-down: upstream deletes the first
// min(active - wanted, 500) active pods of its deletion order, so every
// active pod must be ranked (node, phase, Ready and its transition, the
// containers' restart counts, creation time) and the first 500 kept, here in
// a bounded max-heap (n log 500), then sorted and emitted as deletions. It
// returns the plan's deletions.
func ScaleDownFloor(s jobsync.Snapshot) (Deleted, bool) {
	job := s.Job
	if job.Spec.Suspend != nil && *job.Spec.Suspend || int(job.Status.Succeeded) != 0 {
		return Deleted{}, false
	}
	want := min(int(*job.Spec.Completions), int(*job.Spec.Parallelism))
	// The count of active pods is not known before the pass; the 500 cap
	// is (a cut that removes fewer than 500 takes a shorter prefix).
	ranks, active, ready, ok := activeRanks(s, 500)
	if !ok || active-want < 500 {
		return Deleted{}, false
	}
	return Deleted{deletions(ranks, fmt.Sprintf("%d pods are active, the Job wants %d", active, want)), active, ready}, true
}

// SuspendFloor is the floor of a suspension: upstream deletes every active
// pod, in its deletion order, so every active pod is ranked and all the
// ranks sorted (n log n), then emitted as deletions. (Upstream issues the
// deletions concurrently, so their order is not observable from outside;
// the plan fixes it as upstream's order, which is what a sort of the ranks
// gives; a plan that is the same whatever the order of the input pods
// needs a sort of all of them anyway.)
func SuspendFloor(s jobsync.Snapshot) (Deleted, bool) {
	if s.Job.Spec.Suspend == nil || !*s.Job.Spec.Suspend {
		return Deleted{}, false
	}
	ranks, active, ready, ok := activeRanks(s, 0)
	if !ok {
		return Deleted{}, false
	}
	return Deleted{deletions(ranks, "the Job is suspended"), active, ready}, true
}

// --- Create: the pods of the plan ------------------------------------------

// Created is what CreateFloor builds: the plan's creations, and the active
// and ready pods counted before them.
type Created struct {
	Creations     []jobsync.PodCreation
	Active, Ready int
}

// CreateFloor is the floor of an Indexed Job with missing indexes: the
// semantic floor's reads plus each active pod's index (a bitset of
// completions bits), the first min(missing, 500) indexes without a pod, and
// for each a pod built from the template as the plan holds it: a deep copy
// of the template's spec with the index in the environment and the
// hostname, the labels and annotations with the index, the tracking
// finalizer and the controller reference. It returns the plan's creations.
func CreateFloor(s jobsync.Snapshot) (Created, bool) {
	job := s.Job
	if !indexed(job) || job.Status.Succeeded != 0 || job.Status.CompletedIndexes != "" || job.Spec.Suspend != nil && *job.Spec.Suspend {
		return Created{}, false
	}
	completions := int(*job.Spec.Completions)
	bits := make(indexBits, (completions+63)/64)
	active, ready := 0, 0
	for _, p := range s.Pods {
		if !owned(p, job.UID) || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			return Created{}, false
		}
		active++
		if ix := completionIndex(p); ix < 0 || ix >= completions || !bits.set(ix) {
			return Created{}, false
		}
		if r, _ := readyCondition(p); r {
			ready++
		}
	}
	n := min(min(completions, int(*job.Spec.Parallelism))-active, 500)
	if n <= 0 {
		return Created{}, false
	}
	out := make([]jobsync.PodCreation, 0, n)
	ref := *metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))
	tmpl := &job.Spec.Template
	if len(tmpl.Annotations) != 0 || len(tmpl.Finalizers) != 0 {
		return Created{}, false
	}
	for ix := 0; ix < completions && len(out) < n; ix++ {
		if bits.has(ix) {
			continue
		}
		out = append(out, newPodFloor(job, tmpl, ref, ix))
	}
	return Created{out, active, ready}, true
}

func newPodFloor(job *batchv1.Job, tmpl *corev1.PodTemplateSpec, ref metav1.OwnerReference, ix int) jobsync.PodCreation {
	s := strconv.Itoa(ix)
	labels := make(map[string]string, len(tmpl.Labels)+1)
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels[batchv1.JobCompletionIndexAnnotation] = s
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    job.Name + "-" + s + "-",
			Namespace:       job.Namespace,
			Labels:          labels,
			Annotations:     map[string]string{batchv1.JobCompletionIndexAnnotation: s},
			Finalizers:      []string{batchv1.JobTrackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{ref},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.labels['" + batchv1.JobCompletionIndexAnnotation + "']",
	}}}
	for i := range pod.Spec.InitContainers {
		pod.Spec.InitContainers[i].Env = append(pod.Spec.InitContainers[i].Env, env)
	}
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].Env = append(pod.Spec.Containers[i].Env, env)
	}
	pod.Spec.Hostname = job.Name + "-" + s
	v := ix
	return jobsync.PodCreation{Pod: pod, CompletionIndex: &v, Reason: "index " + s + " is pending"}
}

// --- Tracking: the write-ahead record of finished pods ---------------------

// Tracked is what TrackingFloor builds: the finalizer removals, the
// pending removals the expectations must hold, and the status's record of
// the pods counted: their UIDs in uncountedTerminatedPods (NonIndexed), or
// completedIndexes and the succeeded count (Indexed).
type Tracked struct {
	Removals         []jobsync.FinalizerRemoval
	Pending          []types.UID
	Uncounted        []types.UID
	CompletedIndexes string
	Succeeded        int32
	Active, Ready    int
}

// TrackingFloor is the floor of a Job whose pods just succeeded with the
// tracking finalizer still on: beyond the semantic floor's reads, each
// finished pod's finalizer (and, for an Indexed Job, every pod's index:
// the succeeded ones' to write completedIndexes, which upstream fills with
// every succeeded index at once, the active ones' to find repeats), then
// the first 500 of them in the order upstream takes them (completion index
// for Indexed Jobs, read from a table of completions slots in O(n); for
// NonIndexed Jobs upstream's informer order, which the library makes
// canonical as creation time, name, UID, kept in a bounded max-heap),
// recorded (NonIndexed: their UIDs in uncountedTerminatedPods) and
// released. A finished pod's finish time is not read: with no
// pod newly failed, upstream's backoff record is reset whatever the
// succeeded pods' finish times.
func TrackingFloor(s jobsync.Snapshot) (Tracked, bool) {
	job := s.Job
	st := &job.Status
	if st.UncountedTerminatedPods != nil && len(st.UncountedTerminatedPods.Succeeded)+len(st.UncountedTerminatedPods.Failed) > 0 ||
		s.Expectations.FinalizerRemovals.Len() > 0 || st.CompletedIndexes != "" || st.Succeeded != 0 || job.Spec.Suspend != nil && *job.Spec.Suspend {
		return Tracked{}, false
	}
	const maxUncounted = 500
	ix := indexed(job)
	completions := int(*job.Spec.Completions)
	var bits indexBits
	var byIndex []*corev1.Pod // Indexed: the succeeded pod of each index
	var heapPods []*corev1.Pod
	later := func(a, b *corev1.Pod) int { return compareAge(b, a) }
	if ix {
		bits = make(indexBits, (completions+63)/64)
		byIndex = make([]*corev1.Pod, completions)
	} else {
		heapPods = make([]*corev1.Pod, 0, maxUncounted)
	}
	var active, ready int
	for _, p := range s.Pods {
		if !owned(p, job.UID) || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodFailed {
			return Tracked{}, false
		}
		if p.Status.Phase != corev1.PodSucceeded {
			active++
			if r, _ := readyCondition(p); r {
				ready++
			}
			if ix {
				if i := completionIndex(p); i < 0 || i >= completions || !bits.set(i) {
					return Tracked{}, false
				}
			}
			continue
		}
		if !hasFinalizer(p) {
			continue
		}
		if ix {
			i := completionIndex(p)
			if i < 0 || i >= completions || byIndex[i] != nil {
				return Tracked{}, false
			}
			byIndex[i] = p
			continue
		}
		switch {
		case len(heapPods) < maxUncounted:
			heapPods = append(heapPods, p)
			if len(heapPods) == maxUncounted {
				heap.Init(heapPods, later)
			}
		case compareAge(p, heapPods[0]) < 0:
			heapPods[0] = p
			heap.Down(heapPods, 0, later)
		}
	}
	t := Tracked{Active: active, Ready: ready}
	var released []*corev1.Pod
	if ix {
		// Upstream counts every succeeded index at once (completedIndexes
		// is every succeeded pod's index), and releases the first 500.
		var succeeded []int
		for i, p := range byIndex {
			if p != nil {
				succeeded = append(succeeded, i)
				if len(released) < maxUncounted {
					released = append(released, p)
				}
			}
		}
		t.CompletedIndexes = formatIndexes(succeeded)
		t.Succeeded = int32(len(succeeded))
	} else {
		slices.SortFunc(heapPods, compareAge)
		released = heapPods
		t.Uncounted = make([]types.UID, len(released))
		for k, p := range released {
			t.Uncounted[k] = p.UID
		}
		t.Succeeded = int32(len(released))
	}
	if len(released) == 0 {
		return Tracked{}, false
	}
	t.Removals = make([]jobsync.FinalizerRemoval, len(released))
	t.Pending = make([]types.UID, len(released))
	for k, p := range released {
		t.Removals[k] = jobsync.FinalizerRemoval{Pod: jobsync.PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID}, Reason: "the pod succeeded and is counted"}
		t.Pending[k] = p.UID
	}
	return t, true
}

// compareAge is the library's canonical order of a NonIndexed Job's own
// pods: creation time, name, UID.
func compareAge(a, b *corev1.Pod) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

// formatIndexes writes ascending indexes as completedIndexes does:
// intervals "a-b" of three or more, joined by commas.
func formatIndexes(ixs []int) string {
	var b []byte
	for i := 0; i < len(ixs); {
		j := i
		for j+1 < len(ixs) && ixs[j+1] == ixs[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(ixs[i]), 10)
		switch {
		case j == i+1:
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(ixs[j]), 10)
		case j > i+1:
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(ixs[j]), 10)
		}
		i = j + 1
	}
	return string(b)
}
