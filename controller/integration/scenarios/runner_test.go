package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/kubeletplayer"
)

const ns = "default"

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func ptr[T any](v T) *T { return &v }

// env is one API server with a kubelet player on it.
type env struct {
	t      *testing.T
	ctx    context.Context
	srv    *apiservertest.Server
	player *kubeletplayer.Player

	// seen holds the last version of every pod the env's informer saw,
	// removed ones included.
	seenMu sync.Mutex
	seen   map[types.UID]*corev1.Pod
}

// restartDelay is the player's crash-loop back-off base: the kubelet's 10s
// would make restartPolicy OnFailure scenarios long.
const restartDelay = 300 * time.Millisecond

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := apiservertest.Start(t)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	e := &env{t: t, ctx: ctx, srv: srv, player: kubeletplayer.New(srv.Client, kubeletplayer.Options{RestartDelay: restartDelay, Concurrency: 32}),
		seen: map[types.UID]*corev1.Pod{}}
	factory := informers.NewSharedInformerFactory(srv.Client, 0)
	note := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok {
			e.seenMu.Lock()
			e.seen[p.UID] = p
			e.seenMu.Unlock()
		}
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: note, UpdateFunc: func(_, obj any) { note(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.player.Run(ctx); err != nil {
			t.Errorf("kubelet player: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if s := e.player.Stats(); s.Errors > 0 {
			t.Errorf("kubelet player: %d failed API calls, the last: %v", s.Errors, s.Err)
		}
	})
	return e
}

// baseJob is the Job every scenario starts from: one pod that runs one
// container, restartPolicy Never.
func baseJob(name string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(1)),
			Completions: ptr(int32(1)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
}

// jobRun is one Job of a run, managed by one controller.
type jobRun struct {
	ctl       *controller
	name      string
	job       *batchv1.Job // as created
	created   time.Time
	last      *batchv1.Job // as last seen
	gone      bool
	history   []string // condition changes seen, "Type=Status/Reason"
	maxActive int32
	done      time.Time
}

// record is what a run of one Job by one controller produced.
type record struct {
	Scenario   string
	Controller string
	Job        string
	Outcome    outcome
	Calls      map[string]int // the controller's calls about this Job
	AllCalls   map[string]int // all the controller's calls, informers' included
	Rejected   []string
	Wall       time.Duration
	Events     map[string]int
	History    []string
	MaxActive  int32
	Pods       []*corev1.Pod // at the end
	AllPods    []*corev1.Pod // every pod of the Job seen, removed ones in their last version
	Leftover   []string      // pods still holding the controller's tracking finalizer
	TimedOut   bool
}

// outcome is the final status of a Job, with times relative to its
// creation.
type outcome struct {
	Gone             bool
	Conditions       []condition
	Active           int32
	Succeeded        int32
	Failed           int32
	CompletedIndexes string
	FailedIndexes    *string
	Uncounted        int
	StartTime        *time.Duration
	CompletionTime   *time.Duration
}

type condition struct {
	Type    batchv1.JobConditionType
	Status  corev1.ConditionStatus
	Reason  string
	Message string
}

func outcomeOf(job *batchv1.Job, gone bool) outcome {
	o := outcome{Gone: gone}
	if job == nil {
		return o
	}
	st := job.Status
	o.Active, o.Succeeded, o.Failed = st.Active, st.Succeeded, st.Failed
	o.CompletedIndexes, o.FailedIndexes = st.CompletedIndexes, st.FailedIndexes
	if u := st.UncountedTerminatedPods; u != nil {
		o.Uncounted = len(u.Succeeded) + len(u.Failed)
	}
	rel := func(t *metav1.Time) *time.Duration {
		if t == nil {
			return nil
		}
		d := t.Sub(job.CreationTimestamp.Time)
		return &d
	}
	o.StartTime, o.CompletionTime = rel(st.StartTime), rel(st.CompletionTime)
	for _, c := range st.Conditions {
		o.Conditions = append(o.Conditions, condition{c.Type, c.Status, c.Reason, c.Message})
	}
	return o
}

// finished is the condition type (Complete or Failed) a Job ended with, or
// "".
func finished(job *batchv1.Job) batchv1.JobConditionType {
	if job == nil {
		return ""
	}
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// runJobs runs sc once per controller, each on a Job of its own (named
// after the scenario and the controller's kind), all at the same time on
// e's API server, and returns one record per controller.
func (e *env) runJobs(sc scenario, ctls ...*controller) []*record {
	t := e.t
	t.Helper()
	runs := make([]*jobRun, len(ctls))
	for i, c := range ctls {
		job := baseJob(fmt.Sprintf("%s-%s", sc.name, c.kind))
		if sc.job != nil {
			sc.job(job)
		}
		if c.managedBy != "" {
			job.Spec.ManagedBy = ptr(c.managedBy)
		}
		runs[i] = &jobRun{ctl: c, name: job.Name, job: job}
		c.calls.track(job.Name)
	}
	// Create the Jobs together, so that they live the same times.
	for _, r := range runs {
		if sc.before != nil {
			sc.before(e, r)
		}
		created, err := e.srv.Client.BatchV1().Jobs(ns).Create(e.ctx, r.job, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("creating Job %s: %v", r.name, err) // Errorf: runJobs may run in a goroutine
			return nil
		}
		r.job, r.created = created, time.Now()
		e.player.Play(created, sc.script)
	}
	for _, r := range runs {
		if sc.after != nil {
			sc.after(e, r)
		}
	}

	var wg sync.WaitGroup
	for _, r := range runs {
		for _, st := range sc.steps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-time.After(time.Until(r.created.Add(st.at))):
				case <-e.ctx.Done():
					return
				}
				if err := st.do(e, r); err != nil {
					t.Errorf("%s: step %q at %v: %v", r.name, st.what, st.at, err)
				}
			}()
		}
	}

	timeout := sc.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	deadline := time.Now().Add(timeout)
	timedOut := false
	for {
		all := true
		for _, r := range runs {
			e.poll(r)
			if r.done.IsZero() {
				if (sc.untilGone && r.gone) || (!sc.untilGone && finished(r.last) != "") {
					r.done = time.Now()
				} else {
					all = false
				}
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			timedOut = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()

	// Let finalizer removals and events land.
	e.settle(runs, 15*time.Second)

	out := make([]*record, len(runs))
	for i, r := range runs {
		rec := &record{
			Scenario: sc.name, Controller: r.ctl.kind, Job: r.name,
			Outcome: outcomeOf(r.last, r.gone), Calls: r.ctl.calls.jobCalls(r.name), AllCalls: r.ctl.calls.snapshot(),
			Rejected: r.ctl.calls.rejectedWrites(),
			History:  r.history, MaxActive: r.maxActive, TimedOut: timedOut && r.done.IsZero(),
		}
		if !r.done.IsZero() {
			rec.Wall = r.done.Sub(r.created)
		}
		rec.Pods = e.podsOf(r)
		rec.AllPods = e.seenPodsOf(r)
		for _, p := range rec.Pods {
			for _, f := range p.Finalizers {
				if f == r.ctl.finalizer {
					rec.Leftover = append(rec.Leftover, p.Name)
				}
			}
		}
		rec.Events = e.eventsOf(r.name)
		out[i] = rec
		if rec.TimedOut {
			t.Errorf("%s: not done within %v; last status %+v; history %v", r.name, timeout, rec.Outcome, rec.History)
		}
	}
	return out
}

// poll reads the Job and notes its changes.
func (e *env) poll(r *jobRun) {
	if r.gone {
		return
	}
	job, err := e.srv.Client.BatchV1().Jobs(ns).Get(e.ctx, r.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		r.gone = true
		return
	}
	if err != nil {
		e.t.Errorf("reading Job %s: %v", r.name, err)
		return
	}
	r.last = job
	r.maxActive = max(r.maxActive, job.Status.Active)
	for _, c := range job.Status.Conditions {
		s := fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason)
		if len(r.history) == 0 || !containsLast(r.history, string(c.Type), s) {
			r.history = append(r.history, s)
		}
	}
}

// containsLast says whether the last entry of history for condition type
// typ is s.
func containsLast(history []string, typ, s string) bool {
	for i := len(history) - 1; i >= 0; i-- {
		if strings.HasPrefix(history[i], typ+"=") {
			return history[i] == s
		}
	}
	return false
}

// settle waits until no pod of the runs' Jobs holds its controller's
// tracking finalizer (or timeout), then a second for events to be written.
func (e *env) settle(runs []*jobRun, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		clean := true
		for _, r := range runs {
			for _, p := range e.podsOf(r) {
				for _, f := range p.Finalizers {
					if f == r.ctl.finalizer {
						clean = false
					}
				}
			}
		}
		if clean {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	for _, r := range runs {
		e.poll(r)
	}
}

// podsOf lists the pods of a run's Job: those it controls, those carrying
// its controller-uid label, and those the scenario made for it.
func (e *env) podsOf(r *jobRun) []*corev1.Pod {
	list, err := e.srv.Client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Errorf("listing pods: %v", err)
		return nil
	}
	var pods []*corev1.Pod
	for i := range list.Items {
		pods = append(pods, &list.Items[i])
	}
	return r.filter(pods)
}

// seenPodsOf is podsOf with the pods the API server already removed.
func (e *env) seenPodsOf(r *jobRun) []*corev1.Pod {
	e.seenMu.Lock()
	var pods []*corev1.Pod
	for _, p := range e.seen {
		pods = append(pods, p)
	}
	e.seenMu.Unlock()
	return r.filter(pods)
}

// filter keeps the pods of the run's Job, in creation order.
func (r *jobRun) filter(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if ownedBy(p, r.job.UID) || p.Labels[batchv1.ControllerUidLabel] == string(r.job.UID) || p.Annotations[forJobAnnotation] == r.name {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreationTimestamp.Equal(&out[j].CreationTimestamp) {
			return out[i].CreationTimestamp.Before(&out[j].CreationTimestamp)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// forJobAnnotation marks pods a scenario creates for a Job itself
// (orphans, strays), so that they are found after they are released.
const forJobAnnotation = "scenarios.jobsync.io/for-job"

func ownedBy(p *corev1.Pod, uid types.UID) bool {
	for _, ref := range p.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// eventsOf counts the events recorded on a Job by reason.
func (e *env) eventsOf(name string) map[string]int {
	list, err := e.srv.Client.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String(),
	})
	if err != nil {
		e.t.Errorf("listing events: %v", err)
		return nil
	}
	out := map[string]int{}
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind != "Job" {
			continue
		}
		out[ev.Reason] += max(int(ev.Count), 1)
	}
	return out
}
