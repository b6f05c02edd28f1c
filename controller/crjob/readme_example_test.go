package crjob_test

import (
	"log"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/jobsync/jobsync/controller/crjob"
)

// readmeMain holds README's "## controller-runtime" snippet between its
// marker lines, compiled: a user's whole wiring.
func readmeMain() {
	// README snippet starts.
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{LeaderElection: true, LeaderElectionID: "mine-jobs"})
	if err != nil {
		log.Fatal(err)
	}
	// The Jobs with spec.managedBy: example.com/mine; their pods get example.com/mine-tracking.
	if _, err := crjob.SetupWithManager(mgr, crjob.Options{ControllerName: "example.com/mine"}); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Fatal(err)
	}
	// README snippet ends.
}

var _ = readmeMain

// TestREADMESnippet keeps README's controller-runtime snippet compiled:
// its Go block under "## controller-runtime" must be readmeMain's body
// between the marker lines, one tab less indented, and at most 30 lines.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## controller-runtime\n")
	if !ok {
		t.Fatal(`README.md has no "## controller-runtime" section`)
	}
	_, block, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("the section has no Go block")
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("the Go block is not closed")
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\t// README snippet starts.\n")
	body, _, ok = strings.Cut(body, "\t// README snippet ends.\n")
	if !ok {
		t.Fatal("readme_example_test.go lost its snippet markers")
	}
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if d := cmp.Diff(strings.TrimSpace(strings.Join(lines, "\n")), strings.TrimSpace(block)); d != "" {
		t.Errorf("README's controller-runtime snippet and readmeMain differ (-code +README):\n%s", d)
	}
	if n := strings.Count(strings.TrimSpace(block), "\n") + 1; n > 30 {
		t.Errorf("README's controller-runtime wiring is %d lines, more than 30", n)
	}
}

// TestReconcileFitsFortyLines: the reconciler README points to as a start
// for one's own stays at most 40 lines.
func TestReconcileFitsFortyLines(t *testing.T) {
	src, err := os.ReadFile("reconciler.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "\nfunc (r *Reconciler) Reconcile(")
	if !ok {
		t.Fatal("reconciler.go has no Reconcile")
	}
	body, _, ok = strings.Cut(body, "\n}\n")
	if !ok {
		t.Fatal("Reconcile is not closed")
	}
	if n := strings.Count(body, "\n") + 2; n > 40 {
		t.Errorf("Reconcile is %d lines, more than 40", n)
	}
}

// TestReconcileReadsMemoryBeforePods: Reconcile lists no pods before
// Store.Snapshot reads the memory (Snapshot calls the lister itself).
func TestReconcileReadsMemoryBeforePods(t *testing.T) {
	src, err := os.ReadFile("reconciler.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\nfunc (r *Reconciler) Reconcile(")
	before, _, ok := strings.Cut(body, "r.store.Snapshot(")
	if !ok {
		t.Fatal("Reconcile does not call r.store.Snapshot")
	}
	for _, listing := range []string{".List(", "r.pods(", "ListPods("} {
		if strings.Contains(before, listing) {
			t.Errorf("Reconcile lists pods (%s) before the memory is read", listing)
		}
	}
}
