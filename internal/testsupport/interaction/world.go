package interaction

import (
	"fmt"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
)

// Epoch is the moment files count time from: the creation time of their
// Jobs. Outputs write instants as "@1m30s", the time since Epoch.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// World is one Job's small cluster as a file drives it: the API server's
// objects, the controller's informer view of them (which moves only on
// observe), and the controller's memory between syncs. Unlike
// jobsynctest's cluster nothing happens unless a command says so.
type World struct {
	now  time.Time
	opts jobsync.Options

	// The API server's objects.
	job  *batchv1.Job
	pods map[string]*corev1.Pod // by name
	rv   int

	// The controller's informer view, as of the last observe.
	viewJob  *batchv1.Job
	viewPods map[string]*corev1.Pod // by name

	// The controller's memory.
	exp     expectations.Expectations
	backoff backoff.Record

	// generated counts the names given to each generateName prefix.
	generated map[string]int

	// OnSync, when set, is called with the snapshot and options of each
	// sync, before the plan is carried out.
	OnSync func(jobsync.Snapshot, jobsync.Options)
}

// New returns an empty world at Epoch. The first command of a file
// creates its Job.
func New() *World {
	return &World{now: Epoch, pods: map[string]*corev1.Pod{}, viewPods: map[string]*corev1.Pod{}, generated: map[string]int{}}
}

// Run carries out one directive and returns its output, every line ending
// in a newline and none blank.
func (w *World) Run(d Directive) (string, error) {
	if w.job == nil && d.Command != "job" {
		return "", fmt.Errorf("line %d: %s before any job", d.Line, d.Command)
	}
	var out lines
	var err error
	switch d.Command {
	case "job":
		err = w.createJob(d, &out)
	case "pods":
		err = w.addPods(d, &out)
	case "sync":
		err = w.sync(d, &out)
	case "observe":
		err = w.observe(d, &out)
	case "restart":
		w.restart(&out)
	case "tick":
		err = w.tick(d, &out)
	case "start", "succeed", "fail", "disrupt", "delete":
		err = w.changePods(d, &out)
	case "suspend", "resume", "scale":
		err = w.changeJob(d, &out)
	case "show":
		w.show(&out)
	default:
		err = fmt.Errorf("unknown command %q (want job, pods, sync, observe, restart, tick, start, succeed, fail, disrupt, delete, suspend, resume, scale or show)", d.Command)
	}
	if err != nil {
		return "", fmt.Errorf("line %d: %s: %w", d.Line, d.Command, err)
	}
	return out.String(), nil
}

// lines collects a command's output.
type lines []string

func (l *lines) add(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func (l lines) String() string {
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\n") + "\n"
}

// at writes an instant as its distance from Epoch.
func at(t time.Time) string { return "@" + t.Sub(Epoch).String() }

func (w *World) nextRV() string {
	w.rv++
	return fmt.Sprint(w.rv)
}

// finalizer is the tracking finalizer the controller uses.
func (w *World) finalizer() string {
	if w.opts.TrackingFinalizer != "" {
		return w.opts.TrackingFinalizer
	}
	return batchv1.JobTrackingFinalizer
}

// storePod puts a changed pod in the API server, and lets it go when the
// API server would no longer store it (apirules.Removed).
func (w *World) storePod(p *corev1.Pod) {
	p.ResourceVersion = w.nextRV()
	w.pods[p.Name] = p
	if apirules.Removed(p) {
		delete(w.pods, p.Name)
	}
}

// sortedNames lists the keys of a pod map in order.
func sortedNames(m map[string]*corev1.Pod) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// uidNames maps pod UIDs to names, for outputs that list UIDs.
func (w *World) uidNames() map[types.UID]string {
	m := map[types.UID]string{}
	for _, pods := range []map[string]*corev1.Pod{w.viewPods, w.pods} {
		for _, p := range pods {
			m[p.UID] = p.Name
		}
	}
	return m
}

func (w *World) controlled(p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.UID == w.job.UID
}

func ptr[T any](v T) *T { return &v }
