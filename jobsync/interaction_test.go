package jobsync_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/internal/testsupport/interaction"
	"github.com/jobsync/jobsync/jobsync"
)

// TestInteractions runs the multi-sync scenario files of
// ../testdata/interactions (see internal/testsupport/interaction for the
// commands): each command's output must be the one the file pins. With
// -update the outputs are rewritten; read the diff before committing it.
// Every sync is also decided again with the pods in another order, which
// must give the same plan.
func TestInteractions(t *testing.T) {
	files, err := filepath.Glob("../testdata/interactions/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no interaction files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := interaction.Parse(string(raw))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			w := interaction.New()
			syncs := 0
			w.OnSync = func(snap jobsync.Snapshot, opts jobsync.Options) {
				syncs++
				checkPodOrderIrrelevant(t, snap, opts, syncs)
			}
			outputs := make([]string, len(f.Directives))
			for i, d := range f.Directives {
				got, err := w.Run(d)
				if err != nil {
					if *update {
						// Keep what ran, so that the author sees where the
						// file went wrong.
						for j := i; j < len(outputs); j++ {
							outputs[j] = f.Directives[j].Output
						}
						_ = os.WriteFile(file, []byte(f.Rewrite(outputs)), 0o644)
					}
					t.Fatalf("%s: %v", file, err)
				}
				outputs[i] = got
				if !*update && got != d.Output {
					t.Errorf("%s:%d: %s %s: output differs (-want +got):\n%s", file, d.Line, d.Command, strings.Join(d.Args, " "), cmp.Diff(d.Output, got))
				}
			}
			if syncs == 0 {
				t.Errorf("%s has no sync", file)
			}
			if *update {
				if err := os.WriteFile(file, []byte(f.Rewrite(outputs)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// checkPodOrderIrrelevant decides the snapshot twice, the second time with
// its pods shuffled, and fails the test if the plans differ.
func checkPodOrderIrrelevant(t *testing.T, snap jobsync.Snapshot, opts jobsync.Options, n int) {
	t.Helper()
	first, err := jobsync.Reconcile(snap, opts)
	if err != nil {
		return // the world reports the error
	}
	shuffled := snap
	shuffled.Pods = append([]*corev1.Pod(nil), snap.Pods...)
	rand.New(rand.NewPCG(uint64(n), 7)).Shuffle(len(shuffled.Pods), func(i, j int) {
		shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
	})
	again, err := jobsync.Reconcile(shuffled, opts)
	if err != nil {
		t.Errorf("sync %d: Reconcile with shuffled pods: %v", n, err)
		return
	}
	if d := cmp.Diff(first, again); d != "" {
		t.Errorf("sync %d: the order of pods changed the plan (-first +shuffled):\n%s", n, d)
	}
}
