package podorder_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/podorder"
)

// genPod draws pods from small domains, so that ties on every rule are
// frequent and each rule gets to decide some comparisons.
func genPod(t *rapid.T, label string) *corev1.Pod {
	times := []time.Time{{}, earlier, t0, later}
	p := &corev1.Pod{}
	p.Name = rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, label+".name")
	p.UID = types.UID(rapid.SampledFrom([]string{"", "u1", "u2"}).Draw(t, label+".uid"))
	p.Spec.NodeName = rapid.SampledFrom([]string{"", "n1", "n2"}).Draw(t, label+".node")
	p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{"", corev1.PodPending, corev1.PodUnknown,
		corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, label+".phase")
	p.CreationTimestamp = metav1.NewTime(rapid.SampledFrom(times).Draw(t, label+".created"))
	for i := range rapid.IntRange(0, 2).Draw(t, label+".conditions") {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: rapid.SampledFrom([]corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady}).
				Draw(t, fmt.Sprintf("%s.cond%d.type", label, i)),
			Status: rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}).
				Draw(t, fmt.Sprintf("%s.cond%d.status", label, i)),
			LastTransitionTime: metav1.NewTime(rapid.SampledFrom(times).Draw(t, fmt.Sprintf("%s.cond%d.time", label, i))),
		})
	}
	for i := range rapid.IntRange(0, 2).Draw(t, label+".containers") {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:         fmt.Sprintf("c%d", i),
			RestartCount: rapid.Int32Range(0, 2).Draw(t, fmt.Sprintf("%s.c%d.restarts", label, i)),
		})
	}
	for i := range rapid.IntRange(0, 2).Draw(t, label+".inits") {
		name := fmt.Sprintf("i%d", i)
		policy := rapid.SampledFrom([]*corev1.ContainerRestartPolicy{nil, always}).Draw(t, fmt.Sprintf("%s.i%d.policy", label, i))
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: name, RestartPolicy: policy})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{
			Name:         name,
			RestartCount: rapid.Int32Range(0, 2).Draw(t, fmt.Sprintf("%s.i%d.restarts", label, i)),
		})
	}
	return p
}

// TestPropertyCompareIsStrictTotalOrder: Compare is reflexive-equal,
// antisymmetric and transitive, agrees with Less, and reports two pods equal
// only when they share name and UID.
func TestPropertyCompareIsStrictTotalOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := genPod(t, "a"), genPod(t, "b"), genPod(t, "c")
		if got := podorder.Compare(a, a); got != 0 {
			t.Fatalf("Compare(a, a) = %d", got)
		}
		ab, ba := podorder.Compare(a, b), podorder.Compare(b, a)
		if sign(ab) != -sign(ba) {
			t.Fatalf("not antisymmetric: Compare(a,b)=%d Compare(b,a)=%d", ab, ba)
		}
		if podorder.Less(a, b) != (ab < 0) {
			t.Fatalf("Less(a,b)=%v but Compare(a,b)=%d", podorder.Less(a, b), ab)
		}
		if ab == 0 && (a.Name != b.Name || a.UID != b.UID) {
			t.Fatalf("pods %s/%s and %s/%s compare equal", a.Name, a.UID, b.Name, b.UID)
		}
		bc, ac := podorder.Compare(b, c), podorder.Compare(a, c)
		if ab <= 0 && bc <= 0 {
			if ac > 0 {
				t.Fatalf("not transitive: a<=b, b<=c but a>c")
			}
			if (ab < 0 || bc < 0) && ac == 0 {
				t.Fatalf("not transitive: a<b<=c or a<=b<c but a==c")
			}
		}
	})
}

// TestPropertyFirstForRemoval: the choice depends only on the set of pods,
// never on their order; the input is left untouched; the chosen pods are the
// least n in the order, sorted.
func TestPropertyFirstForRemoval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *corev1.Pod { return genPod(t, "pod") }), 0, 8).Draw(t, "pods")
		// Distinct name+UID keeps the choice a choice of pointers: pods that
		// are fully tied could otherwise swap places with equal right.
		for i, p := range pods {
			p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, i))
		}
		n := rapid.IntRange(-1, len(pods)+1).Draw(t, "n")
		perm := rapid.Permutation(pods).Draw(t, "perm")

		snapshot := make([]*corev1.Pod, len(pods))
		for i, p := range pods {
			snapshot[i] = p.DeepCopy()
		}
		order := slices.Clone(pods)

		got := podorder.FirstForRemoval(pods, n)
		if diff := cmp.Diff(snapshot, pods); diff != "" {
			t.Fatalf("pods modified (-before +after):\n%s", diff)
		}
		if !slices.Equal(order, pods) {
			t.Fatalf("input slice reordered")
		}
		if again := podorder.FirstForRemoval(perm, n); !slices.Equal(got, again) {
			t.Fatalf("a permutation of the input changes the choice:\n%v\n%v", names(got), names(again))
		}
		if want := max(0, min(n, len(pods))); len(got) != want {
			t.Fatalf("len = %d, want %d", len(got), want)
		}
		if !slices.IsSortedFunc(got, podorder.Compare) {
			t.Fatalf("result not in deletion order: %v", names(got))
		}
		for _, p := range pods {
			if slices.Contains(got, p) {
				continue
			}
			for _, q := range got {
				if podorder.Less(p, q) {
					t.Fatalf("%s/%s was left out but goes before chosen %s/%s", p.Name, p.UID, q.Name, q.UID)
				}
			}
		}
	})
}

// TestPropertyFirstForRemovalIsSortPrefix: on Jobs large enough for the
// bounded-heap path (n at most an eighth of the pods) as well as the sorting
// one, FirstForRemoval picks exactly the first n pods of a sort by Compare:
// the bounded heap keeps the right pods, and the order is the same whether
// pods are ranked once (FirstForRemoval) or at every comparison (Compare).
func TestPropertyFirstForRemovalIsSortPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *corev1.Pod { return genPod(t, "pod") }), 1, 120).Draw(t, "pods")
		for i, p := range pods {
			p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, i))
		}
		n := rapid.OneOf(rapid.IntRange(0, len(pods)/8), rapid.IntRange(0, len(pods))).Draw(t, "n")
		sorted := slices.Clone(pods)
		slices.SortFunc(sorted, podorder.Compare)
		if got, want := podorder.FirstForRemoval(pods, n), sorted[:n]; !slices.Equal(got, want) {
			t.Fatalf("FirstForRemoval(%d of %d) = %v, sort by Compare gives %v", n, len(pods), names(got), names(want))
		}
	})
}
