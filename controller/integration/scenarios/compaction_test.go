package scenarios

import (
	"flag"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	compactionFlag        = flag.Bool("sidebyside.compaction", false, "run a 300-pod Job per controller while both controllers' watch streams are cut and etcd compacts every 2s (a measurement, not in CI)")
	compactionParallelism = flag.Int("sidebyside.compaction.parallelism", 50, "parallelism of the 300-pod Jobs")
	compactionCuts        = flag.Int("sidebyside.compaction.cuts", 3, "how many times the watch streams are cut, 4s apart")
)

// TestWatchCompaction measures how long a 300-pod Job takes with upstream's
// controller and with ours when their watch streams are cut three times
// while etcd compacts its history every two seconds, so that each watch
// started again from the last resourceVersion its informer saw meets 410
// Gone and the informer lists again.
func TestWatchCompaction(t *testing.T) {
	if !*compactionFlag {
		t.Skip("a measurement: run with -sidebyside.compaction")
	}
	prev := apiservertest.Flags
	apiservertest.Flags = append(append([]string(nil), prev...), "--etcd-compaction-interval=2s")
	e := newEnv(t)
	apiservertest.Flags = prev
	upCut, oursCut := &watchCutter{}, &watchCutter{}
	up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1, cutter: upCut})
	ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1, cutter: oursCut})
	sc := scenario{
		name:    "compaction",
		job:     sizes(300, int32(*compactionParallelism)),
		script:  jobsynctest.Script{Default: run(time.Second)},
		timeout: 5 * time.Minute,
	}
	for i := 1; i <= *compactionCuts; i++ {
		at := time.Duration(i) * 4 * time.Second
		sc.steps = append(sc.steps, step{at: at, what: "cut the watch streams", do: func(e *env, r *jobRun) error {
			if r.ctl == ours {
				t.Logf("%v: cut %d of our watch streams", at, oursCut.cut())
			} else {
				t.Logf("%v: cut %d of upstream's watch streams", at, upCut.cut())
			}
			return nil
		}})
	}
	recs := e.runJobs(sc, up, ours)
	if recs == nil {
		return
	}
	// What is measured is the time; what must hold regardless is the
	// outcome: the same counts and conditions on both sides.
	for _, d := range compare(recs[0], recs[1], false, time.Hour) {
		t.Errorf("the Jobs ended apart: %v", d)
	}
	for _, rec := range recs {
		t.Logf("%s: %s in %v; calls %s; lists and watches of Jobs and pods: %d", rec.Controller, describe(rec.Outcome), rec.Wall.Round(100*time.Millisecond),
			summary(rec.Calls, true), rec.AllCalls["list jobs"]+rec.AllCalls["list pods"]+rec.AllCalls["watch jobs"]+rec.AllCalls["watch pods"])
	}
}

// watchCutter tracks the watch responses a controller's transport
// returned and closes them all on cut.
type watchCutter struct {
	mu     sync.Mutex
	bodies map[*cutBody]bool
}

func (w *watchCutter) wrap(rt http.RoundTripper) http.RoundTripper {
	return cutTransport{w, rt}
}

// cut closes every open watch stream and returns how many.
func (w *watchCutter) cut() int {
	w.mu.Lock()
	bodies := w.bodies
	w.bodies = nil
	w.mu.Unlock()
	for b := range bodies {
		b.ReadCloser.Close()
	}
	return len(bodies)
}

type cutTransport struct {
	w  *watchCutter
	rt http.RoundTripper
}

type cutBody struct{ io.ReadCloser }

func (t cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	b := &cutBody{resp.Body}
	resp.Body = b
	t.w.mu.Lock()
	if t.w.bodies == nil {
		t.w.bodies = map[*cutBody]bool{}
	}
	t.w.bodies[b] = true
	t.w.mu.Unlock()
	return resp, err
}
