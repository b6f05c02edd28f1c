package childproc

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

const envSpec = "CHILDPROC_TEST_SPEC"

// TestMain is the child's side: with the spec set, it writes the spec's
// file and waits for SIGTERM's default action to end it.
func TestMain(m *testing.M) {
	var path string
	if Spec(envSpec, &path) {
		if err := os.WriteFile(path, []byte("started"), 0o644); err != nil {
			os.Exit(3)
		}
		select {}
	}
	os.Exit(m.Run())
}

func TestStartRunsTheChildAndStopEndsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "started")
	stop := Start(t, envSpec, path)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(path); err == nil && string(data) == "started" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not write its file within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("stop did not end the child within 30s")
	}
	stop() // a second call does nothing
}

func TestPeakRSS(t *testing.T) {
	got := PeakRSS()
	if runtime.GOOS != "linux" {
		if got != 0 {
			t.Errorf("PeakRSS = %d where /proc/self/status is absent, want 0", got)
		}
		return
	}
	if got < 1<<20 {
		t.Errorf("PeakRSS = %d bytes, want at least a MiB for a Go test process", got)
	}
}
