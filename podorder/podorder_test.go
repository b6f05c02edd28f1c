package podorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/podorder"
)

var (
	t0      = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	earlier = t0.Add(-time.Hour)
	later   = t0.Add(time.Hour)
)

// podOpt shapes a test pod; pods start unassigned, Pending-less (phase ""),
// without conditions, statuses or creation time.
type podOpt func(*corev1.Pod)

func pod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func uid(u string) podOpt { return func(p *corev1.Pod) { p.UID = types.UID(u) } }

func onNode(n string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = n } }

func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }

func created(t time.Time) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t) }
}

// readyCond appends a Ready condition with the given status and transition.
func readyCond(s corev1.ConditionStatus, since time.Time) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodReady, Status: s, LastTransitionTime: metav1.NewTime(since),
		})
	}
}

func readySince(t time.Time) podOpt { return readyCond(corev1.ConditionTrue, t) }

// restarts gives the pod one regular container per count.
func restarts(counts ...int32) podOpt {
	return func(p *corev1.Pod) {
		for i, c := range counts {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses,
				corev1.ContainerStatus{Name: fmt.Sprintf("c%d", i), RestartCount: c})
		}
	}
}

// initContainer adds an init container to the spec and its status; policy
// nil is a classic init container, Always a sidecar.
func initContainer(name string, policy *corev1.ContainerRestartPolicy, count int32) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: name, RestartPolicy: policy})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses,
			corev1.ContainerStatus{Name: name, RestartCount: count})
	}
}

var always = ptr(corev1.ContainerRestartPolicyAlways)

func sidecar(name string, count int32) podOpt { return initContainer(name, always, count) }

func ptr[T any](v T) *T { return &v }

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// TestCompare specifies each rule of the deletion order with a pair of pods
// that the rule, and no earlier one, tells apart. first is the pod that must
// go first; both argument orders are checked.
func TestCompare(t *testing.T) {
	cases := []struct {
		name          string
		first, second *corev1.Pod
	}{
		// Rule 1: assignment to a node.
		{"unassigned before assigned",
			pod("b", phase(corev1.PodPending)),
			pod("a", onNode("n1"), phase(corev1.PodPending))},
		{"unassigned before assigned even when further along",
			pod("b", phase(corev1.PodRunning), readySince(earlier), restarts(0)),
			pod("a", onNode("n1"), phase(corev1.PodPending))},
		{"two different nodes do not decide: the phase does",
			pod("b", onNode("n2"), phase(corev1.PodPending)),
			pod("a", onNode("n1"), phase(corev1.PodRunning))},

		// Rule 2: phase.
		{"Pending before Unknown",
			pod("b", onNode("n"), phase(corev1.PodPending)),
			pod("a", onNode("n"), phase(corev1.PodUnknown))},
		{"Unknown before Running",
			pod("b", onNode("n"), phase(corev1.PodUnknown)),
			pod("a", onNode("n"), phase(corev1.PodRunning))},
		{"Pending before Running",
			pod("b", onNode("n"), phase(corev1.PodPending)),
			pod("a", onNode("n"), phase(corev1.PodRunning))},
		{"empty phase counts as Pending",
			pod("b", onNode("n")),
			pod("a", onNode("n"), phase(corev1.PodUnknown))},
		{"Succeeded counts as Pending",
			pod("b", onNode("n"), phase(corev1.PodSucceeded)),
			pod("a", onNode("n"), phase(corev1.PodRunning))},
		{"Failed counts as Pending",
			pod("b", onNode("n"), phase(corev1.PodFailed)),
			pod("a", onNode("n"), phase(corev1.PodUnknown))},
		{"Pending and Failed tie on phase: the name decides",
			pod("a", onNode("n"), phase(corev1.PodFailed)),
			pod("b", onNode("n"), phase(corev1.PodPending))},

		// Rule 3: readiness.
		{"no Ready condition before ready",
			pod("b", onNode("n"), phase(corev1.PodRunning)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0))},
		{"Ready=False before ready",
			pod("b", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionFalse, earlier)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0))},
		{"Ready=Unknown before ready",
			pod("b", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionUnknown, earlier)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0))},
		{"only the first Ready condition counts",
			pod("b", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionFalse, earlier), readySince(earlier)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0))},
		{"not ready before ready even with more restarts on the ready one",
			pod("b", onNode("n"), phase(corev1.PodRunning), restarts(0)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0), restarts(9))},

		// Rule 4: how long the pod has been ready.
		{"ready for less time first",
			pod("b", onNode("n"), phase(corev1.PodRunning), readySince(later)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(earlier))},
		{"zero ready time counts as the most recent",
			pod("b", onNode("n"), phase(corev1.PodRunning), readySince(time.Time{})),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(later))},
		{"same ready time: the restarts decide",
			pod("b", onNode("n"), phase(corev1.PodRunning), readySince(t0), restarts(2)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0), restarts(1))},
		{"same instant in another zone is the same ready time",
			pod("b", onNode("n"), phase(corev1.PodRunning), readySince(t0.In(time.FixedZone("X", 3600))), restarts(2)),
			pod("a", onNode("n"), phase(corev1.PodRunning), readySince(t0), restarts(1))},
		{"transition times of pods not ready do not count",
			pod("a", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionFalse, earlier)),
			pod("b", onNode("n"), phase(corev1.PodRunning), readyCond(corev1.ConditionFalse, later))},

		// Rule 5: restarts.
		{"more restarts first",
			pod("b", onNode("n"), phase(corev1.PodRunning), restarts(3)),
			pod("a", onNode("n"), phase(corev1.PodRunning), restarts(1))},
		{"the busiest container counts, not the sum",
			pod("b", onNode("n"), restarts(3, 0)),
			pod("a", onNode("n"), restarts(2, 2))},
		{"no container statuses count as zero restarts",
			pod("b", onNode("n"), restarts(1)),
			pod("a", onNode("n"))},
		{"equal regular restarts: more sidecar restarts first",
			pod("b", onNode("n"), restarts(1), sidecar("proxy", 4)),
			pod("a", onNode("n"), restarts(1), sidecar("proxy", 2))},
		{"regular restarts outrank sidecar restarts",
			pod("b", onNode("n"), restarts(2), sidecar("proxy", 0)),
			pod("a", onNode("n"), restarts(1), sidecar("proxy", 9))},
		{"restarts of a classic init container do not count",
			pod("a", onNode("n"), restarts(1), initContainer("setup", nil, 0)),
			pod("b", onNode("n"), restarts(1), initContainer("setup", nil, 7))},
		{"restarts of an init container with restartPolicy OnFailure do not count",
			pod("a", onNode("n"), restarts(1), initContainer("setup", ptr(corev1.ContainerRestartPolicyOnFailure), 0)),
			pod("b", onNode("n"), restarts(1), initContainer("setup", ptr(corev1.ContainerRestartPolicyOnFailure), 7))},
		{"an init status without a matching spec container does not count",
			pod("a", onNode("n"), func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "ghost", RestartCount: 0}}
			}),
			pod("b", onNode("n"), func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "ghost", RestartCount: 5}}
			})},

		// Rule 6: creation time.
		{"newer first",
			pod("b", onNode("n"), created(later)),
			pod("a", onNode("n"), created(earlier))},
		{"zero creation time counts as the newest",
			pod("b", onNode("n")),
			pod("a", onNode("n"), created(later))},

		// Rule 7: this package's tie-breaks.
		{"full tie on upstream's rules: name ascending",
			pod("a", onNode("n1"), created(t0), uid("9")),
			pod("b", onNode("n2"), created(t0), uid("1"))},
		{"same name: UID ascending",
			pod("a", onNode("n"), created(t0), uid("1")),
			pod("a", onNode("n"), created(t0), uid("2"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := podorder.Compare(tc.first, tc.second); got >= 0 {
				t.Errorf("Compare(first, second) = %d, want < 0", got)
			}
			if got := podorder.Compare(tc.second, tc.first); got <= 0 {
				t.Errorf("Compare(second, first) = %d, want > 0", got)
			}
			if !podorder.Less(tc.first, tc.second) || podorder.Less(tc.second, tc.first) {
				t.Errorf("Less disagrees with Compare")
			}
		})
	}
}

func TestCompareEqual(t *testing.T) {
	cases := []struct {
		name string
		a, b *corev1.Pod
	}{
		{"empty pods", &corev1.Pod{}, &corev1.Pod{}},
		{"same name and UID, fields no rule reads differ",
			pod("a", uid("1"), onNode("n1"), func(p *corev1.Pod) { p.Labels = map[string]string{"x": "y"} }),
			pod("a", uid("1"), onNode("n2"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := podorder.Compare(tc.a, tc.b); got != 0 {
				t.Errorf("Compare = %d, want 0", got)
			}
			if podorder.Less(tc.a, tc.b) || podorder.Less(tc.b, tc.a) {
				t.Errorf("Less reports an order between equal pods")
			}
		})
	}
}

func TestIsReady(t *testing.T) {
	cases := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"no conditions", pod("p"), false},
		{"Ready=True", pod("p", readySince(t0)), true},
		{"Ready=True with zero transition time", pod("p", readySince(time.Time{})), true},
		{"Ready=False", pod("p", readyCond(corev1.ConditionFalse, t0)), false},
		{"Ready=Unknown", pod("p", readyCond(corev1.ConditionUnknown, t0)), false},
		{"only other conditions True", pod("p", func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			}
		}), false},
		{"first Ready condition decides (False then True)", pod("p", readyCond(corev1.ConditionFalse, t0), readySince(t0)), false},
		{"first Ready condition decides (True then False)", pod("p", readySince(t0), readyCond(corev1.ConditionFalse, t0)), true},
		{"phase Running alone is not ready", pod("p", phase(corev1.PodRunning)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := podorder.IsReady(tc.pod); got != tc.want {
				t.Errorf("IsReady = %v, want %v", got, tc.want)
			}
		})
	}
}

// ladder is a set of pods in the deletion order, one rule apart from the next.
func ladder() []*corev1.Pod {
	return []*corev1.Pod{
		pod("unscheduled", phase(corev1.PodPending)),
		pod("scheduled-pending", onNode("n"), phase(corev1.PodPending)),
		pod("unknown-phase", onNode("n"), phase(corev1.PodUnknown)),
		pod("running-not-ready", onNode("n"), phase(corev1.PodRunning)),
		pod("ready-no-transition-time", onNode("n"), phase(corev1.PodRunning), readySince(time.Time{}), restarts(3, 0)),
		pod("ready-recently", onNode("n"), phase(corev1.PodRunning), readySince(t0), restarts(3, 0)),
		pod("ready-longer", onNode("n"), phase(corev1.PodRunning), readySince(earlier), restarts(3, 0)),
		pod("more-sidecar-restarts", onNode("n"), phase(corev1.PodRunning), readySince(earlier), restarts(2, 1), sidecar("s", 2), created(t0)),
		pod("fewer-restarts", onNode("n"), phase(corev1.PodRunning), readySince(earlier), restarts(2, 1), created(t0)),
		pod("oldest", onNode("n"), phase(corev1.PodRunning), readySince(earlier), restarts(2, 1), created(earlier)),
		pod("oldest", onNode("n"), phase(corev1.PodRunning), readySince(earlier), restarts(2, 1), created(earlier), uid("z")),
	}
}

func names(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name+"/"+string(p.UID))
	}
	return out
}

func TestFirstForRemoval(t *testing.T) {
	all := ladder()
	wantAll := names(all)
	// Present the ladder reversed and rotated: the input order must not matter.
	var scrambled []*corev1.Pod
	for i := range all {
		scrambled = append(scrambled, all[(len(all)-1-i+4)%len(all)])
	}
	cases := []struct {
		name string
		pods []*corev1.Pod
		n    int
		want []string
	}{
		{"nil pods", nil, 3, nil},
		{"n zero", scrambled, 0, nil},
		{"n negative", scrambled, -2, nil},
		{"first one", scrambled, 1, wantAll[:1]},
		{"first three", scrambled, 3, wantAll[:3]},
		{"all", scrambled, len(all), wantAll},
		{"n above len is clamped", scrambled, len(all) + 5, wantAll},
		{"single pod", all[4:5], 1, wantAll[4:5]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := names(tc.pods)
			got := podorder.FirstForRemoval(tc.pods, tc.n)
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("FirstForRemoval (-want +got):\n%s", diff)
			}
			if len(got) != len(tc.want) {
				t.Errorf("len = %d, want %d", len(got), len(tc.want))
			}
			if diff := cmp.Diff(before, names(tc.pods)); diff != "" {
				t.Errorf("input reordered (-before +after):\n%s", diff)
			}
		})
	}
}

// TestFirstForRemovalKeepsPointers: the chosen pods are the caller's own
// pointers, not copies, and appending to the result leaves the input alone.
func TestFirstForRemovalKeepsPointers(t *testing.T) {
	pods := ladder()
	in := append([]*corev1.Pod(nil), pods...)
	got := podorder.FirstForRemoval(pods, 2)
	if got[0] != in[0] || got[1] != in[1] {
		t.Fatalf("FirstForRemoval returned copies or the wrong pods")
	}
	_ = append(got, pod("intruder"))
	for i := range pods {
		if pods[i] != in[i] {
			t.Fatalf("appending to the result changed the input at %d", i)
		}
	}
}

// TestCompareDoesNotAllocate: Compare ranks both pods at every call; the
// ranks must stay on the stack, since sorts call Compare n log n times.
func TestCompareDoesNotAllocate(t *testing.T) {
	a := pod("a", uid("1"), onNode("n1"))
	b := pod("b", uid("2"), onNode("n1"))
	if n := testing.AllocsPerRun(100, func() { podorder.Compare(a, b) }); n != 0 {
		t.Errorf("Compare made %v allocations, want 0", n)
	}
}
