package scenarios

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var faultsFlag = flag.Bool("sidebyside.faults", false, "run every scenario with faults injected into our controller, beside upstream's fault-free run")

// faultTolerance is how far apart start and completion times may be under
// faults: a failed write is retried after the work queue's rate-limited
// delay (1s, doubling), and a restart relists everything, so our Job
// legitimately ends later than upstream's fault-free twin.
const faultTolerance = 15 * time.Second

// fault is one kind of misfortune injected into our controller only.
type fault struct {
	name string
	// failWrites is the share of its writes that fail before reaching the
	// API server.
	failWrites float64
	// restarts are the times (from the Jobs' creation) at which our
	// controller is stopped and a fresh one started, its memory lost.
	restarts []time.Duration
	// labelWriter patches the labels of our Job every period, so that the
	// controller's status writes meet resourceVersion conflicts.
	labelWriter time.Duration
	// both puts the fault on upstream's Job too: the control run that
	// shows what upstream's controller does under the same fault.
	both bool
}

var faults = []fault{
	{name: "restarts", restarts: []time.Duration{700 * time.Millisecond, 2 * time.Second, 3500 * time.Millisecond}},
	{name: "writes20", failWrites: 0.2},
	{name: "conflicts", labelWriter: 150 * time.Millisecond},
	{name: "conflicts-both", labelWriter: 150 * time.Millisecond, both: true},
}

// TestFaults runs each scenario of the suite with each fault injected into
// our controller, beside upstream's fault-free run of the twin Job, and
// checks that the outcome is upstream's: the same final status (times
// within faultTolerance), no pod counted twice or lost (the counters and
// indexes), none left with the tracking finalizer, no status write
// rejected.
func TestFaults(t *testing.T) {
	if !*faultsFlag {
		t.Skip("run with -sidebyside.faults (about 5 minutes on 2 cores)")
	}
	devs := loadSideBySideDeviations(t)
	var mu sync.Mutex
	var rows []sbsRow
	for _, f := range faults {
		for _, sc := range suite() {
			t.Run(f.name+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
				ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1, failWrites: f.failWrites, seed: uint64(len(sc.name))})
				sc := sc
				sc.name = sc.name + "-" + f.name
				// The scenarios' own checks count calls, which failed
				// writes and restarts change; the outcome is what is judged.
				sc.check = nil
				for _, at := range f.restarts {
					sc.steps = append(sc.steps, step{at: at, what: "restart our controller", do: func(e *env, r *jobRun) error {
						if r.ctl == ours {
							ours.restart(t)
						}
						return nil
					}})
				}
				ctx, cancel := context.WithCancel(e.ctx)
				defer cancel()
				if f.labelWriter > 0 {
					prevAfter := sc.after
					sc.after = func(e *env, r *jobRun) {
						if prevAfter != nil {
							prevAfter(e, r)
						}
						if r.ctl == ours || f.both {
							go writeLabels(ctx, e, r.name, f.labelWriter)
						}
					}
				}
				recs := e.runJobs(sc, up, ours)
				cancel()
				if recs == nil {
					return
				}
				row := compareRun(t, devs, sc, recs[0], recs[1], false, faultTolerance)
				s := ours.calls
				s.mu.Lock()
				row.note = fmt.Sprintf("%d restarts, %d writes failed", ours.restarts, s.injected)
				s.mu.Unlock()
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
			})
		}
	}
	t.Cleanup(func() { writeSideBySideReport(t, "faults (ours under faults, upstream without)", rows) })
}

// writeLabels patches a label of Job name every period until ctx ends, as
// another actor writing the Job would.
func writeLabels(ctx context.Context, e *env, name string, period time.Duration) {
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
		body := fmt.Sprintf(`{"metadata":{"labels":{"scenarios.jobsync.io/writer":"%d"}}}`, n)
		_, _ = e.srv.Client.BatchV1().Jobs(ns).Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
	}
}
