package jobsync

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
)

// TestMachineActivePods drives an ActivePods through random sequences of
// Put and Delete of pods drawn from a small pool of UIDs (so that pods are
// replaced, let go and put back), and after every step checks everything
// the set keeps incrementally against what a plain map of the pods it
// should hold says, recomputed from scratch: which pods it takes, Len and
// Has, the ready count, the int32 restart sum, the index multiset (has,
// repeated, atOrAbove, members, the extra count of each index), and that
// the positions (at) and the slice (pods) agree.
//
// The pods mix what decides whether the set takes one (phase, deletion,
// owner references, namespace, labels, completion index) with what its
// sums read (readiness, restart counts near the int32 limits, indexes
// repeated, invalid, at word boundaries of the bitset and at or beyond
// denseIndexes, where the map takes over). The model reads a pod's index
// with indexes.Of, the parser upstream's reading is pinned to in package
// indexes (FuzzOf): what is under test here is what the set keeps.
func TestMachineActivePods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newActivePodsMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"put":    m.put,
			"delete": m.delete,
			"":       m.check,
		})
	})
}

// machineUIDs is the pool of pod UIDs the machine draws from; the last is
// never put, so that Delete also meets a UID the set never saw.
var machineUIDs = []types.UID{"u0", "u1", "u2", "u3", "u4", "u5", "never-put"}

// machineIndexes are the completion index annotations the pods carry:
// small ones (which repeat), the edges of bitset words, the edges of the
// bitset itself, the largest int, and ones that do not read as an index.
var machineIndexes = []string{
	"0", "1", "2", "3", "63", "64", "65", "127", "128",
	strconv.Itoa(denseIndexes - 1), strconv.Itoa(denseIndexes), strconv.Itoa(denseIndexes + 1), strconv.Itoa(denseIndexes + 64),
	strconv.Itoa(math.MaxInt32), strconv.Itoa(math.MaxInt),
	"-1", "abc", "", "99999999999999999999",
}

// machineRestarts are restart counts: small ones, and ones whose sums wrap
// around int32 (the API server never sends a negative one; the set must
// still add and take away what it is given).
var machineRestarts = []int32{0, 1, 2, 7, math.MaxInt32, math.MaxInt32 - 1, math.MinInt32, -1}

// machineAbove are the bounds atOrAbove is asked about.
var machineAbove = []int{0, 1, 2, 3, 4, 63, 64, 65, 66, 128, 129, 1000, denseIndexes - 1, denseIndexes, denseIndexes + 1, denseIndexes + 65, math.MaxInt32, math.MaxInt}

type activePodsMachine struct {
	job  *batchv1.Job
	sel  labels.Selector
	set  *ActivePods
	want map[types.UID]*corev1.Pod // the pods the set should hold
	seq  int
}

func newActivePodsMachine(t *rapid.T) *activePodsMachine {
	mode := batchv1.NonIndexedCompletion
	if rapid.Bool().Draw(t, "indexed") {
		mode = batchv1.IndexedCompletion
	}
	selector := rapid.SampledFrom([]*metav1.LabelSelector{
		{MatchLabels: map[string]string{"app": "sm"}},
		{MatchLabels: map[string]string{"app": "sm", "tier": "x"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"sm", "sm2"}}}},
	}).Draw(t, "selector")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "sm", Namespace: "ns", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Completions:    ptrInt32(5),
			Selector:       selector,
			CompletionMode: &mode,
		},
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		t.Fatalf("selector %v: %v", selector, err)
	}
	return &activePodsMachine{job: job, sel: sel, set: NewActivePods(job), want: map[types.UID]*corev1.Pod{}}
}

// put puts a freshly drawn pod, a new object as an informer hands them.
func (m *activePodsMachine) put(t *rapid.T) {
	p := m.drawPod(t)
	take := m.takes(p)
	if got := m.set.Put(p); got != take {
		t.Fatalf("Put(%s) = %v, want %v", describePod(p), got, take)
	}
	if take {
		m.want[p.UID] = p
	} else {
		delete(m.want, p.UID)
	}
}

func (m *activePodsMachine) delete(t *rapid.T) {
	uid := rapid.SampledFrom(machineUIDs).Draw(t, "deleteUID")
	_, held := m.want[uid]
	if got := m.set.Delete(uid); got != held {
		t.Fatalf("Delete(%s) = %v, want %v", uid, got, held)
	}
	delete(m.want, uid)
}

func (m *activePodsMachine) drawPod(t *rapid.T) *corev1.Pod {
	m.seq++
	uid := rapid.SampledFrom(machineUIDs[:len(machineUIDs)-1]).Draw(t, "uid")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name:      "pod-" + string(uid),
		Namespace: rapid.SampledFrom([]string{"ns", "ns", "ns", "other"}).Draw(t, "namespace"),
		UID:       uid,
		// Tells apart the objects put under one UID.
		ResourceVersion: strconv.Itoa(m.seq),
	}}
	p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{
		corev1.PodRunning, corev1.PodRunning, corev1.PodPending, "", corev1.PodUnknown, corev1.PodSucceeded, corev1.PodFailed,
	}).Draw(t, "phase")
	if rapid.IntRange(0, 7).Draw(t, "deleting") == 0 {
		p.DeletionTimestamp = &metav1.Time{}
	}
	job := m.job
	ctl, other := true, false
	toJob := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: &ctl}
	switch rapid.IntRange(0, 7).Draw(t, "owner") {
	case 0: // orphan
	case 1: // controlled by another Job
		ref := toJob
		ref.UID, ref.Name = "another-job", "another"
		p.OwnerReferences = []metav1.OwnerReference{ref}
	case 2: // the Job's UID under another name
		ref := toJob
		ref.Name = "not-sm"
		p.OwnerReferences = []metav1.OwnerReference{ref}
	case 3: // a reference to the Job that is not a controller's
		ref := toJob
		ref.Controller = &other
		p.OwnerReferences = []metav1.OwnerReference{ref}
	case 4: // another owner first, the Job controlling
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}, toJob}
	default:
		p.OwnerReferences = []metav1.OwnerReference{toJob}
	}
	p.Labels = map[string]string{}
	switch rapid.IntRange(0, 5).Draw(t, "labels") {
	case 0:
	case 1:
		p.Labels["app"] = "other"
	case 2:
		p.Labels["app"] = "sm"
	case 3:
		p.Labels["app"] = "sm2"
	default:
		p.Labels["app"], p.Labels["tier"] = "sm", "x"
	}
	if rapid.IntRange(0, 5).Draw(t, "noIndex") > 0 {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: rapid.SampledFrom(machineIndexes).Draw(t, "index")}
	}
	switch rapid.IntRange(0, 4).Draw(t, "readiness") {
	case 0: // no conditions
	case 1:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	case 2:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	case 3: // the first PodReady condition decides
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	default:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	for range rapid.IntRange(0, 2).Draw(t, "initContainers") {
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{RestartCount: rapid.SampledFrom(machineRestarts).Draw(t, "restarts")})
	}
	for range rapid.IntRange(0, 2).Draw(t, "containers") {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{RestartCount: rapid.SampledFrom(machineRestarts).Draw(t, "restarts")})
	}
	return p
}

// takes says, without the set's code, whether the set takes p: an active
// pod of the Job's namespace whose controller reference (the first owner
// reference that says it is one) names the Job, selected by its labels,
// with a readable completion index when the Job is Indexed.
func (m *activePodsMachine) takes(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil {
		return false
	}
	if p.Namespace != m.job.Namespace || !m.sel.Matches(labels.Set(p.Labels)) {
		return false
	}
	controlled := false
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			controlled = o.UID == m.job.UID && o.Name == m.job.Name && o.Kind == "Job"
			break
		}
	}
	return controlled && (!m.indexed() || indexes.Of(p.Annotations) >= 0)
}

func (m *activePodsMachine) indexed() bool {
	return *m.job.Spec.CompletionMode == batchv1.IndexedCompletion
}

func modelReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// modelRestarts sums in int32, wrapping around as upstream's sum does.
func modelRestarts(p *corev1.Pod) int32 {
	if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodPending {
		return 0
	}
	var n int32
	for _, s := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
		n += s.RestartCount
	}
	return n
}

// check compares everything the set keeps with the model's recomputation.
func (m *activePodsMachine) check(t *rapid.T) {
	a := m.set
	if a.Len() != len(m.want) {
		t.Fatalf("Len = %d, want %d", a.Len(), len(m.want))
	}
	for _, uid := range machineUIDs {
		if _, held := m.want[uid]; a.Has(uid) != held {
			t.Fatalf("Has(%s) = %v, want %v", uid, a.Has(uid), held)
		}
	}

	// Positions: at is the inverse of pods, and pods holds the very
	// objects put last, with what was read of them.
	if len(a.at) != len(a.pods) {
		t.Fatalf("%d positions for %d pods", len(a.at), len(a.pods))
	}
	for i, h := range a.pods {
		if h.pod == nil {
			t.Fatalf("pods[%d] is empty", i)
		}
		if j, ok := a.at[h.pod.UID]; !ok || j != i {
			t.Fatalf("pods[%d] is %s, at says %d (%v)", i, h.pod.UID, j, ok)
		}
		want := m.want[h.pod.UID]
		if want != h.pod {
			t.Fatalf("pods[%d] holds %s, want %s", i, describePod(h.pod), describePod(want))
		}
		wantIx := indexes.Unknown
		if m.indexed() {
			wantIx = indexes.Of(want.Annotations)
		}
		if h.index != wantIx || h.ready != modelReady(want) || h.restarts != modelRestarts(want) {
			t.Fatalf("pods[%d] (%s) read as index %d, ready %v, restarts %d; want %d, %v, %d",
				i, h.pod.UID, h.index, h.ready, h.restarts, wantIx, modelReady(want), modelRestarts(want))
		}
	}

	// Sums.
	var ready int
	var restarts int32
	count := map[int]int{}
	for _, p := range m.want {
		if modelReady(p) {
			ready++
		}
		restarts += modelRestarts(p)
		if m.indexed() {
			count[indexes.Of(p.Annotations)]++
		}
	}
	if a.ready != ready {
		t.Fatalf("ready = %d, want %d", a.ready, ready)
	}
	if a.restarts != restarts {
		t.Fatalf("restarts = %d, want %d", a.restarts, restarts)
	}

	// The index multiset.
	tally := &a.indexes
	extra := map[int]int{}
	repeated := false
	for ix, n := range count {
		if n > 1 {
			extra[ix], repeated = n-1, true
		}
	}
	if d := cmp.Diff(extra, tally.extra, cmp.Transformer("nilIsEmpty", func(m map[int]int) map[int]int {
		if m == nil {
			return map[int]int{}
		}
		return m
	})); d != "" {
		t.Fatalf("extra pods per index (-want +got):\n%s", d)
	}
	if tally.repeated() != repeated {
		t.Fatalf("repeated = %v, want %v (counts %v)", tally.repeated(), repeated, count)
	}
	probes := map[int]bool{}
	for _, s := range machineIndexes {
		if i, err := strconv.Atoi(s); err == nil {
			for _, d := range []int{-1, 0, 1} {
				if i+d >= -1 && (d <= 0 || i < math.MaxInt) {
					probes[i+d] = true
				}
			}
		}
	}
	for _, ix := range slices.Sorted(maps.Keys(probes)) {
		if got := tally.has(ix); got != (count[ix] > 0) {
			t.Fatalf("has(%d) = %v, want %v (counts %v)", ix, got, count[ix] > 0, count)
		}
	}
	for _, n := range machineAbove {
		want := false
		for ix := range count {
			want = want || ix >= n
		}
		if got := tally.atOrAbove(n); got != want {
			t.Fatalf("atOrAbove(%d) = %v, want %v (counts %v)", n, got, want, count)
		}
	}
	var wantMembers indexes.Set
	for _, ix := range slices.Sorted(maps.Keys(count)) {
		if n := len(wantMembers); n > 0 && wantMembers[n-1].Last == ix-1 {
			wantMembers[n-1].Last = ix
		} else {
			wantMembers = append(wantMembers, indexes.Interval{First: ix, Last: ix})
		}
	}
	if d := cmp.Diff(wantMembers, tally.members()); d != "" {
		t.Fatalf("members (-want +got):\n%s", d)
	}
	for ix := range tally.big {
		if ix < denseIndexes {
			t.Fatalf("index %d is in the map, below denseIndexes", ix)
		}
	}
	if a.holdsIndex(3) != (m.indexed() && count[3] > 0) {
		t.Fatalf("holdsIndex(3) = %v with counts %v", a.holdsIndex(3), count)
	}
}

func describePod(p *corev1.Pod) string {
	if p == nil {
		return "<none>"
	}
	return string(p.UID) + "@" + p.ResourceVersion
}
