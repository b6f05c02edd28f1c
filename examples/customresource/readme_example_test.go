package customresource_test

import (
	"context"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/jobsync/jobsync/examples/customresource"
	"github.com/jobsync/jobsync/jobsync"
)

// ExampleNew is README's "Running it": a main that runs the controller
// until SIGTERM. It is compiled, not run (it needs a cluster).
func ExampleNew() {
	// README's snippet starts here.
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		log.Fatal(err)
	}
	c, err := customresource.New(kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg), jobsync.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c.Run(ctx, 5)
	// README's snippet ends here.
}

// TestREADMESnippet keeps README's "Running it" snippet the code of
// ExampleNew, which the compiler checks.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Running it")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md has no Go block under "## Running it"`)
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "// README's snippet starts here.\n")
	code, _, _ = strings.Cut(code, "\t// README's snippet ends here.")
	code = strings.ReplaceAll(code, "\n\t", "\n")
	code = strings.TrimPrefix(code, "\t")
	if code == "" || code != block {
		t.Errorf("README's snippet and ExampleNew differ:\nREADME:\n%s\nExampleNew:\n%s", block, code)
	}
}
