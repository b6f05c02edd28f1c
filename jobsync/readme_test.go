package jobsync_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// TestREADMESnippet keeps README's usage snippet compiled: the Go block
// under "## Using it" must be readme_example_test.go's code (its imports,
// types and function, up to the line that ends the snippet), so the
// snippet cannot drift from code that compiles, and Example_readme runs it.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, usage, ok := strings.Cut(string(readme), "\n## Using it\n")
	if !ok {
		t.Fatal(`README.md has no "## Using it" section`)
	}
	_, block, ok := strings.Cut(usage, "```go\n")
	if !ok {
		t.Fatal(`README's "Using it" section has no Go block`)
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("README's Go block is not closed")
	}

	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code, _, ok := strings.Cut(string(src), "// End of README's snippet")
	if !ok {
		t.Fatal("readme_example_test.go lost its end-of-snippet line")
	}
	code = strings.TrimPrefix(code, "package jobsync_test\n\n")
	if d := cmp.Diff(strings.TrimSpace(code), strings.TrimSpace(block)); d != "" {
		t.Errorf("README's usage snippet and readme_example_test.go differ (-example +README):\n%s", d)
	}
}

// Example_readme runs README's snippet on a new Job whose plan is carried
// out in full: two pods to create, and the memory now expects them.
func Example_readme() {
	mem := &memory{}
	noPods := func(*batchv1.Job) []*corev1.Pod { return nil }
	var plan jobsync.Plan
	everyStep := func(_ jobsync.Snapshot, p jobsync.Plan) (jobsync.Plan, jobsync.Progress) {
		plan = p
		return p, jobsync.Progress{}
	}
	if err := syncJob(exampleJob(), noPods, mem, everyStep); err != nil {
		panic(err)
	}
	fmt.Println(len(plan.Creations), "creations; expecting", mem.exp.Creations)
	// Output:
	// 2 creations; expecting 2
}

// TestREADMEReadsMemoryBeforePods fails if README's snippet goes back to
// listing the pods before it reads the memory, the order that counts a
// pod twice (see Snapshot.Expectations).
func TestREADMEReadsMemoryBeforePods(t *testing.T) {
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	memAt, listAt := strings.Index(code, "Expectations: mem.exp"), strings.Index(code, "listPods(job)")
	if memAt < 0 || listAt < 0 || memAt > listAt {
		t.Errorf("README's snippet must read the memory (Expectations: mem.exp, at %d) before it lists the pods (listPods(job), at %d)", memAt, listAt)
	}
	if strings.Contains(code, "Pods:") {
		t.Error("README's snippet sets Snapshot.Pods in the literal that reads the memory: Go evaluates the pods first")
	}
}
