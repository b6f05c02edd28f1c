package executor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// readmeWiring holds controller/README's "Use jobsync in your controller"
// snippet between its two marker lines, compiled; its parameters are what
// the snippet takes from the reader's controller.
func readmeWiring(client kubernetes.Interface, recorder events.EventRecorder, queue workqueue.TypedDelayingInterface[string],
	lookUpJobInYourCache memory.JobLookup, listPodsFromYourCache memory.PodLister) {
	// README snippet starts.
	store := memory.NewStore()
	x := &executor.Executor{Client: client, Events: recorder, TrackingFinalizer: "example.com/jobsync-tracking"}
	opts := jobsync.Options{ControllerName: "example.com/jobsync", TrackingFinalizer: x.TrackingFinalizer}

	// In your pod and Job informers' handlers (they only lower memory; enqueue as you do):
	obs := memory.Observer{Store: store, Finalizer: x.TrackingFinalizer, Jobs: lookUpJobInYourCache}
	// AddFunc: obs.PodAdded(pod)  UpdateFunc: obs.PodUpdated(old, cur)  DeleteFunc: obs.PodDeleted(obj)
	// Job DeleteFunc: obs.JobDeleted(obj)

	// One sync of one Job (never two of the same Job at once: a workqueue sees to it):
	syncJob := func(ctx context.Context, job *batchv1.Job) error {
		// Snapshot reads the memory, then calls your lister: the order that
		// counts a pod twice cannot be written.
		snap, err := store.Snapshot(job, time.Now(), listPodsFromYourCache)
		if err != nil {
			return err
		}
		plan, err := jobsync.Reconcile(snap, opts)
		if err != nil {
			return err
		}
		res, err := x.Execute(ctx, store.Begin(snap, opts, plan)) // Begin stores the plan's memory first
		if err != nil {
			return err // an *executor.Error: the step that failed, what was done; retry rate-limited
		}
		if res.RequeueAfter > 0 {
			queue.AddAfter(job.Namespace+"/"+job.Name, res.RequeueAfter)
		}
		return nil
	}
	// README snippet ends.
	_, _ = obs, syncJob
}

// TestControllerREADMESnippet keeps controller/README's snippet compiled:
// its Go block under "## Use jobsync in your controller" must be
// readmeWiring's body between the marker lines, one tab less indented.
func TestControllerREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use jobsync in your controller\n")
	if !ok {
		t.Fatal(`controller/README.md has no "## Use jobsync in your controller" section`)
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
		t.Errorf("controller/README's snippet and readmeWiring differ (-code +README):\n%s", d)
	}
}

// TestExamplesReadMemoryBeforePods: every example of a sync (README's,
// ExampleExecutor_Execute) reads the memory through Store.Snapshot with a
// lister, never with pods listed beforehand. The signature already refuses
// pods; this catches a lister that only returns a list taken before the
// call.
func TestExamplesReadMemoryBeforePods(t *testing.T) {
	for _, f := range []string{"readme_example_test.go", "example_test.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code := string(src)
		at := strings.Index(code, "store.Snapshot(")
		if at < 0 {
			t.Errorf("%s: no store.Snapshot call", f)
			continue
		}
		before := code[:at]
		if i := strings.LastIndex(before, "func("); i >= 0 {
			before = before[i:]
		}
		for _, listing := range []string{".Pods(", ".List(", "podsOf(", "ByIndex("} {
			if strings.Contains(before, listing) {
				t.Errorf("%s: pods are listed (%s) before store.Snapshot reads the memory", f, listing)
			}
		}
	}
}
