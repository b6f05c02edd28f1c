package podorder_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// chosen is what a test reads of a rank: the pod and its readiness.
type chosen struct {
	Pod   string
	Ready bool
}

func chosenOf(ranks []podorder.Ranked) []chosen {
	var out []chosen
	for _, r := range ranks {
		out = append(out, chosen{r.Pod().Name + "/" + string(r.Pod().UID), r.Ready()})
	}
	return out
}

func index(ix string) podOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = ix
	}
}

func controlled(p *corev1.Pod) {
	p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{
		APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "job-uid", Controller: ptr(true),
	})
}

// TestFirstRanked: FirstRanked chooses the pods FirstForRemoval chooses, in
// the same order, each with its readiness as IsReady reads it.
func TestFirstRanked(t *testing.T) {
	all := ladder()
	var scrambled []*corev1.Pod
	for i := range all {
		scrambled = append(scrambled, all[(len(all)-1-i+4)%len(all)])
	}
	ready := func(name string) chosen { return chosen{name + "/", true} }
	notReady := func(name string) chosen { return chosen{name + "/", false} }
	wantAll := []chosen{
		notReady("unscheduled"), notReady("scheduled-pending"), notReady("unknown-phase"),
		notReady("running-not-ready"), ready("ready-no-transition-time"), ready("ready-recently"),
		ready("ready-longer"), ready("more-sidecar-restarts"), ready("fewer-restarts"),
		ready("oldest"), {"oldest/z", true},
	}
	cases := []struct {
		name string
		pods []*corev1.Pod
		n    int
		want []chosen
	}{
		{"nil pods", nil, 3, nil},
		{"n zero", scrambled, 0, nil},
		{"n negative", scrambled, -1, nil},
		{"first five", scrambled, 5, wantAll[:5]},
		{"all", scrambled, len(all), wantAll},
		{"n above len is clamped", scrambled, len(all) + 1, wantAll},
		{"a False Ready condition before a True one: not ready", []*corev1.Pod{
			pod("flip", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionFalse, earlier), readySince(earlier)),
		}, 1, []chosen{notReady("flip")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := podorder.FirstRanked(tc.pods, tc.n)
			if diff := cmp.Diff(tc.want, chosenOf(got)); diff != "" {
				t.Errorf("FirstRanked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(names(podorder.FirstForRemoval(tc.pods, tc.n)), names(podsOfRanks(got))); diff != "" {
				t.Errorf("FirstRanked disagrees with FirstForRemoval (-FirstForRemoval +FirstRanked):\n%s", diff)
			}
		})
	}
}

func podsOfRanks(ranks []podorder.Ranked) []*corev1.Pod {
	var out []*corev1.Pod
	for _, r := range ranks {
		out = append(out, r.Pod())
	}
	return out
}

// TestFirstRankedIndexed: of pods the order ranks equal, the lower
// completion index goes first, then the Job's own pod before an adopted
// one, then name; a pod without a valid index counts as index
// indexes.Unknown, below every index.
func TestFirstRankedIndexed(t *testing.T) {
	same := []podOpt{onNode("n"), phase(corev1.PodRunning), readySince(t0), created(t0)}
	with := func(name string, extra ...podOpt) *corev1.Pod {
		return pod(name, append(slices.Clone(same), extra...)...)
	}
	pods := []*corev1.Pod{
		with("a-index-10", index("10"), controlled),
		with("b-index-2-adopted", index("2")),
		with("c-index-2", index("2"), controlled),
		with("d-no-index", controlled),
		with("e-bad-index", index("x"), controlled),
		with("f-index-07", index("07"), controlled),
		with("g-not-ready", index("99"), func(p *corev1.Pod) { p.Status.Conditions = nil }),
	}
	want := []chosen{
		{"g-not-ready/", false}, {"d-no-index/", true}, {"e-bad-index/", true},
		{"c-index-2/", true}, {"b-index-2-adopted/", true}, {"f-index-07/", true}, {"a-index-10/", true},
	}
	for _, n := range []int{1, 3, len(pods)} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			got := podorder.FirstRankedIndexed(pods, n)
			if diff := cmp.Diff(want[:n], chosenOf(got)); diff != "" {
				t.Errorf("FirstRankedIndexed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(names(podorder.FirstForRemovalIndexed(pods, n)), names(podsOfRanks(got))); diff != "" {
				t.Errorf("disagrees with FirstForRemovalIndexed (-FirstForRemovalIndexed +FirstRankedIndexed):\n%s", diff)
			}
		})
	}
}

// TestRankIndexedTakesTheCallersIndex: RankIndexed orders by the index it
// is given and does not read the annotation again; Rank ignores indexes.
func TestRankIndexedTakesTheCallersIndex(t *testing.T) {
	a := pod("a", onNode("n"), created(t0), index("1"))
	b := pod("b", onNode("n"), created(t0), index("5"))
	ra, rb := podorder.RankIndexed(a, 9), podorder.RankIndexed(b, 5)
	if got := podorder.CompareRanked(&ra, &rb); got <= 0 {
		t.Errorf("CompareRanked(index 9, index 5) = %d, want > 0", got)
	}
	pa, pb := podorder.Rank(a), podorder.Rank(b)
	if got := podorder.CompareRanked(&pa, &pb); got >= 0 {
		t.Errorf("Rank: CompareRanked(a, b) = %d, want < 0 (by name, indexes ignored)", got)
	}
	if ra.Pod() != a || pb.Pod() != b {
		t.Errorf("Pod() does not return the ranked pod")
	}
}

// TestRankDoesNotAllocate: the scan of a Job ranks every active pod; a rank
// must stay on the stack.
func TestRankDoesNotAllocate(t *testing.T) {
	a := pod("a", uid("1"), onNode("n1"), readySince(t0), restarts(1, 2), sidecar("s", 1), index("3"))
	b := pod("b", uid("2"), onNode("n1"), readySince(t0), restarts(1, 2), sidecar("s", 1), index("3"))
	if n := testing.AllocsPerRun(100, func() {
		ra, rb := podorder.RankIndexed(a, 3), podorder.RankIndexed(b, 3)
		podorder.CompareRanked(&ra, &rb)
	}); n != 0 {
		t.Errorf("RankIndexed and CompareRanked made %v allocations, want 0", n)
	}
}

// genIndexedPod is genPod with a completion index annotation from a small
// domain (missing, invalid, repeated), so that index ties are frequent.
func genIndexedPod(t *rapid.T, label string) *corev1.Pod {
	p := genPod(t, label)
	switch ix := rapid.IntRange(-2, 3).Draw(t, label+".index"); ix {
	case -2:
	case -1:
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "x"}
	default:
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(ix)}
	}
	if rapid.Bool().Draw(t, label+".controlled") {
		controlled(p)
	}
	return p
}

// TestPropertyCompareRankedAgreesWithCompare: comparing ranks is comparing
// the pods, and a rank's readiness is IsReady's.
func TestPropertyCompareRankedAgreesWithCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genIndexedPod(t, "a"), genIndexedPod(t, "b")
		ra, rb := podorder.Rank(a), podorder.Rank(b)
		if got, want := sign(podorder.CompareRanked(&ra, &rb)), sign(podorder.Compare(a, b)); got != want {
			t.Fatalf("CompareRanked = %d, Compare = %d", got, want)
		}
		if ra.Ready() != podorder.IsReady(a) || ra.Pod() != a {
			t.Fatalf("Rank(a): Ready %v Pod %p, IsReady %v pod %p", ra.Ready(), ra.Pod(), podorder.IsReady(a), a)
		}
		// Indexed: the same pods with the same index compare as Compare does.
		ia, ib := podorder.RankIndexed(a, 7), podorder.RankIndexed(b, 7)
		if got, want := sign(podorder.CompareRanked(&ia, &ib)), sign(podorder.Compare(a, b)); got != want {
			t.Fatalf("equal indexes: CompareRanked = %d, Compare = %d", got, want)
		}
	})
}

// TestPropertyFirstRankedAgreesWithFirstForRemoval: FirstRanked and
// FirstRankedIndexed choose exactly the pods FirstForRemoval and
// FirstForRemovalIndexed choose, in the same order, each with IsReady's
// readiness; on both the heap and the sort paths.
func TestPropertyFirstRankedAgreesWithFirstForRemoval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *corev1.Pod { return genIndexedPod(t, "pod") }), 0, 80).Draw(t, "pods")
		for i, p := range pods {
			p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, i))
		}
		n := rapid.OneOf(rapid.IntRange(-1, len(pods)/8), rapid.IntRange(-1, len(pods)+1)).Draw(t, "n")
		for _, mode := range []struct {
			name   string
			ranked func([]*corev1.Pod, int) []podorder.Ranked
			pods   func([]*corev1.Pod, int) []*corev1.Pod
		}{
			{"NonIndexed", podorder.FirstRanked, podorder.FirstForRemoval},
			{"Indexed", podorder.FirstRankedIndexed, podorder.FirstForRemovalIndexed},
		} {
			got, want := mode.ranked(pods, n), mode.pods(pods, n)
			if !slices.Equal(podsOfRanks(got), want) {
				t.Fatalf("%s: ranked choice %v, pods choice %v", mode.name, names(podsOfRanks(got)), names(want))
			}
			for _, r := range got {
				if r.Ready() != podorder.IsReady(r.Pod()) {
					t.Fatalf("%s: %s: Ready() = %v, IsReady = %v", mode.name, r.Pod().Name, r.Ready(), !r.Ready())
				}
			}
		}
		// RankIndexed with the index as indexes.Of reads it is what
		// FirstRankedIndexed ranks by.
		ranks := make([]podorder.Ranked, len(pods))
		for i, p := range pods {
			ranks[i] = podorder.RankIndexed(p, indexes.Of(p.Annotations))
		}
		slices.SortFunc(ranks, func(a, b podorder.Ranked) int { return podorder.CompareRanked(&a, &b) })
		k := max(0, min(n, len(pods)))
		if got, want := podsOfRanks(ranks[:k]), podorder.FirstForRemovalIndexed(pods, n); !slices.Equal(got, want) {
			t.Fatalf("sorted RankIndexed %v, FirstForRemovalIndexed %v", names(got), names(want))
		}
	})
}
