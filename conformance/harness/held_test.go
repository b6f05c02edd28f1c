package harness

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// heldCase returns the first case of the families, by seed, that holds
// active pods beside settled ones and whose plan on all its pods does what
// want asks for.
func heldCase(t *testing.T, want func(c gen.Case, plan gen.Plan) bool) gen.Case {
	t.Helper()
	for seed := range uint64(500) {
		for _, fam := range []string{"basic", "finalizers", "indexed", "mixed"} {
			c, err := gen.Generate(fam, seed)
			if err != nil {
				t.Fatal(err)
			}
			_, held := withHeld(c)
			_, settled := withoutSettled(c)
			if held == 0 || settled == 0 {
				continue
			}
			plan, err := c.Reconcile()
			if err == nil && want(c, plan) {
				return c
			}
		}
	}
	t.Fatal("no case holds active pods beside settled ones and does what the test wants")
	return gen.Case{}
}

// TestHeldChangesCatchesAlteredPlans: heldChanges reports a library that
// decides otherwise once active pods are held in an ActivePods, whether it
// does so with the settled pods in Pods or only with them left out too, and
// reports nothing of the library as it is.
func TestHeldChangesCatchesAlteredPlans(t *testing.T) {
	deleting := heldCase(t, func(c gen.Case, plan gen.Plan) bool {
		held, _ := withHeld(c)
		for _, d := range plan.Deletions {
			if held.Snapshot.Active.Has(d.Pod.UID) {
				return true
			}
		}
		return false
	})
	counting := heldCase(t, func(_ gen.Case, plan gen.Plan) bool { return plan.Status != nil || plan.InterimStatus != nil })
	// alter runs the library and, on a snapshot that holds active pods (and
	// leaves settled pods out, when alone is set), alters its decision.
	alter := func(alone bool, change func(gen.Case, *jobsync.Plan) (string, error)) func(gen.Case) (gen.Plan, string, error) {
		return func(c gen.Case) (gen.Plan, string, error) {
			p, panicked, err := reconcile(c)
			if c.Snapshot.Active.Len() == 0 || (alone && c.Snapshot.SettledPods == 0) {
				return p, panicked, err
			}
			panicked, err = change(c, &p.Plan)
			return p, panicked, err
		}
	}
	ready := func(_ gen.Case, p *jobsync.Plan) (string, error) {
		st := p.Status
		if st == nil {
			st = p.InterimStatus
		}
		st.Ready = ptr.To(ptr.Deref(st.Ready, 0) + 1)
		return "", nil
	}
	for _, tc := range []struct {
		name   string
		c      gen.Case
		run    func(gen.Case) (gen.Plan, string, error)
		want   string // in the report; empty: no report
		status bool   // the report shows the status field
	}{
		{"the library as it is", deleting, reconcile, "", false},
		{"the library as it is, on a status write", counting, reconcile, "", false},
		{"a held pod's deletion dropped", deleting, alter(false, func(c gen.Case, p *jobsync.Plan) (string, error) {
			p.Deletions = slices.DeleteFunc(p.Deletions, func(d jobsync.PodDeletion) bool { return c.Snapshot.Active.Has(d.Pod.UID) })
			return "", nil
		}), "active pods held in an ActivePods, the plan differs", false},
		{"ready off by one", counting, alter(false, ready), "active pods held in an ActivePods, the plan differs", true},
		{"ready off by one only without the settled pods", counting, alter(true, ready), "settled pods left out, the plan differs", true},
		{"an error", counting, alter(false, func(gen.Case, *jobsync.Plan) (string, error) { return "", errors.New("refused") }), "the error is refused instead of <nil>", false},
		{"a panic", counting, alter(false, func(gen.Case, *jobsync.Plan) (string, error) { return "boom", nil }), "Reconcile panicked: boom", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, perr := tc.c.Reconcile()
			got := heldChanges(tc.c, plan, perr, tc.run)
			t.Logf("%s seed %d: %s", tc.c.Family, tc.c.Seed, got)
			switch {
			case tc.want == "" && got != "":
				t.Fatalf("reported the library as it is (%s seed %d):\n%s", tc.c.Family, tc.c.Seed, got)
			case tc.want == "":
				return
			case got == "":
				t.Fatalf("the altered decision went unreported (%s seed %d)", tc.c.Family, tc.c.Seed)
			case !strings.Contains(got, tc.want):
				t.Errorf("report does not say %q:\n%s", tc.want, got)
			}
			if tc.status && !strings.Contains(got, "Ready:") {
				t.Errorf("report does not show the ready count:\n%s", got)
			}
		})
	}
}

// A verdict with a held difference is a mismatch of its own class, and
// the report says what holding the pods changed.
func TestHeldVerdict(t *testing.T) {
	c, err := gen.Generate("basic", 1)
	if err != nil {
		t.Fatal(err)
	}
	v := Verdict{Case: c, Held: "with 2 active pods held in an ActivePods, the plan differs"}
	if v.OK() || v.Agree() || v.Class() != "held" {
		t.Errorf("OK = %v, Agree = %v, Class = %q; want false, false, held", v.OK(), v.Agree(), v.Class())
	}
	r, err := Report(v, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r, "MISMATCH: held") || !strings.Contains(r, v.Held) {
		t.Errorf("report does not show the held difference:\n%s", r)
	}
	var st Stats
	st.Counts, st.Examples = map[string]int{}, map[string]uint64{}
	st.add(1, v, func(Verdict) bool { return true })
	if st.Mismatch != 1 || st.Deviations != 0 {
		t.Errorf("counted as %d mismatches and %d deviations, want 1 mismatch", st.Mismatch, st.Deviations)
	}
}

// withHeld holds every active pod the set takes, keeps the others in Pods
// in their order, and keeps a second pod of a UID already held in Pods.
func TestWithHeld(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "j"}},
		},
	}
	pod := func(name, uid string, phase corev1.PodPhase, owned bool) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(uid), Labels: map[string]string{"app": "j"}},
			Status:     corev1.PodStatus{Phase: phase},
		}
		if owned {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "job-uid", Controller: ptr.To(true)}}
		}
		return p
	}
	a := pod("a", "1", corev1.PodRunning, true)
	done := pod("done", "2", corev1.PodSucceeded, true)
	orphan := pod("orphan", "3", corev1.PodRunning, false)
	twin := pod("twin", "1", corev1.PodPending, true) // a's UID
	b := pod("b", "4", corev1.PodPending, true)
	c := gen.Case{Snapshot: jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{a, done, nil, orphan, twin, b}}}
	got, n := withHeld(c)
	if n != 2 || !got.Snapshot.Active.Has("1") || !got.Snapshot.Active.Has("4") {
		t.Errorf("held %d pods (a: %v, b: %v), want a and b", n, got.Snapshot.Active.Has("1"), got.Snapshot.Active.Has("4"))
	}
	var rest []string
	for _, p := range got.Snapshot.Pods {
		name := "<nil>"
		if p != nil {
			name = p.Name
		}
		rest = append(rest, name)
	}
	if want := "done <nil> orphan twin"; strings.Join(rest, " ") != want {
		t.Errorf("Pods = %v, want %s", rest, want)
	}
	if len(c.Snapshot.Pods) != 6 || c.Snapshot.Active != nil {
		t.Error("withHeld changed the case it was given")
	}
}

// TestHeldChangesWantsListedAndHeldRefused: a case that gives two active
// pods one UID is decided (the library checks repeated UIDs only where they
// count); held, one of them stays listed beside the held one, and the
// library must refuse that split with an *InputError. heldChanges reports
// nothing of the library as it is, and reports a library that decides the
// split or refuses it with another kind of error.
func TestHeldChangesWantsListedAndHeldRefused(t *testing.T) {
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			ManualSelector: ptr.To(true),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "j"}},
			Template:       corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "j"}}},
		},
	})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	job.Status.StartTime = &metav1.Time{Time: now}
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "1", Labels: map[string]string{"app": "j"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "job-uid", Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	c := gen.Case{Family: "twins", Snapshot: jobsync.Snapshot{Job: job, Now: now,
		Pods: []*corev1.Pod{pod("a", corev1.PodRunning), pod("twin", corev1.PodPending)}}}
	plan, perr := c.Reconcile()
	if perr != nil {
		t.Fatalf("the case is refused as a whole (%v): it does not test what it should", perr)
	}
	if held, n := withHeld(c); n != 1 || listedHeld(held.Snapshot) != 0 {
		t.Fatalf("held %d pods, the first listed held pod at %d: want a held and its twin listed at 0", n, listedHeld(held.Snapshot))
	}
	decided := func(gen.Case) (gen.Plan, string, error) { return plan, "", nil }
	otherError := func(gen.Case) (gen.Plan, string, error) { return gen.Plan{}, "", errors.New("refused") }
	for _, tc := range []struct {
		name string
		run  func(gen.Case) (gen.Plan, string, error)
		want string // in the report; empty: no report
	}{
		{"the library as it is", reconcile, ""},
		{"the split decided", decided, "pods[0] (UID 1) is both listed and held, and Reconcile did not refuse it"},
		{"the split refused with another error", otherError, "the error refused is not an *InputError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := heldChanges(c, plan, perr, tc.run)
			switch {
			case tc.want == "" && got != "":
				t.Fatalf("reported the library as it is:\n%s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Fatalf("report %q does not say %q", got, tc.want)
			}
		})
	}
}

// TestAdversarialSnapshotsHeldAndSettled: the snapshots FuzzDifferential
// draws (nil and odd values everywhere, repeated UIDs, every owner
// reference shape) are decided alike with their settled pods left out and
// their active pods held, including those the library refuses, which
// FuzzDifferential leaves before Check. No upstream runs, so many are
// cheap; runs of 300,000 (this test with a larger n) and 500,000 (drawn by
// rapid from adversarial.Snapshot) found no difference.
func TestAdversarialSnapshotsHeldAndSettled(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	var held, refused int
	r := rand.New(rand.NewPCG(164, 164))
	data := make([]byte, 64)
	for i := range uint64(n) {
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		s := adversarial.FromBytes(data)
		c := gen.Case{Family: "adversarial", Seed: i, Snapshot: s}
		gateWorkload(&c, i%2 == 1) // scheduling_*_test.go
		plan, panicked, perr := reconcile(c)
		if panicked != "" {
			t.Fatalf("snapshot %d: Reconcile panicked: %s", i, panicked)
		}
		if perr != nil {
			refused++
		}
		if _, k := withHeld(c); k > 0 {
			held++
		}
		if d := settledChanges(c, plan, perr); d != "" {
			t.Errorf("snapshot %d: %s", i, d)
		}
		if d := heldChanges(c, plan, perr, reconcile); d != "" {
			t.Errorf("snapshot %d: %s", i, d)
		}
	}
	t.Logf("%d snapshots, %d hold active pods, %d refused", n, held, refused)
	if held*10 < n {
		t.Errorf("only %d of %d snapshots hold active pods", held, n)
	}
}
