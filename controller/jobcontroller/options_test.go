package jobcontroller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"
)

// TestTrackingFinalizerForGivesValidFinalizers: whatever spec.managedBy
// value a controller answers to, its finalizer is a valid qualified name,
// differs from the built-in controller's and from other controllers'.
func TestTrackingFinalizerForGivesValidFinalizers(t *testing.T) {
	tests := []struct{ name, want string }{
		{"example.com/jobsync", "example.com/jobsync-tracking"},
		{"example.com/jobsync-b", "example.com/jobsync-b-tracking"},
		{"kueue.x-k8s.io/multikueue", "kueue.x-k8s.io/multikueue-tracking"},
		{"batch.example.org/queues/team-a", "batch.example.org/queues.team-a-tracking"},
		{"example.com/" + strings.Repeat("a", 60), "example.com/" + strings.Repeat("a", 54) + "-tracking"},
		{"example.com/weird~path", "example.com/weird.path-tracking"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := TrackingFinalizerFor(tt.name)
		if got != tt.want {
			t.Errorf("TrackingFinalizerFor(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if errs := validation.IsQualifiedName(got); len(errs) > 0 {
			t.Errorf("TrackingFinalizerFor(%q) = %q is not a valid finalizer: %v", tt.name, got, errs)
		}
		if got == upstreamFinalizer || seen[got] {
			t.Errorf("TrackingFinalizerFor(%q) = %q is not its own", tt.name, got)
		}
		seen[got] = true
	}
}

func TestNewRejectsMissingOrBuiltInName(t *testing.T) {
	for _, name := range []string{"", "kubernetes.io/job-controller"} {
		if _, err := New(fake.NewClientset(), Options{ControllerName: name}); err == nil {
			t.Errorf("New with ControllerName %q: no error", name)
		}
	}
	c, err := New(fake.NewClientset(), Options{ControllerName: "example.com/jobsync"})
	if err != nil {
		t.Fatal(err)
	}
	if c.opts.Workers != DefaultWorkers || c.opts.Sync.ControllerName != "example.com/jobsync" || c.TrackingFinalizer() != "example.com/jobsync-tracking" {
		t.Errorf("defaults: workers %d, sync name %q, finalizer %q", c.opts.Workers, c.opts.Sync.ControllerName, c.TrackingFinalizer())
	}
}
