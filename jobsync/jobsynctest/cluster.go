package jobsynctest

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// Cluster is a fake cluster holding one Job and its pods, with the Job
// controller (jobsync.Reconcile and the memory a controller keeps between
// syncs) running against it on a discrete-event clock. It is not safe for
// concurrent use.
type Cluster struct {
	cfg      Config
	opts     jobsync.Options
	fin      string // the tracking finalizer
	maxSyncs int
	maxLag   time.Duration
	rng      *rand.Rand
	now      time.Time

	// The API server.
	job      *batchv1.Job // nil once the Job is gone
	lastJob  *batchv1.Job // the Job as last stored
	pods     map[types.UID]*simPod
	names    map[string]bool
	rv       int64
	created  int         // pods created so far
	attempts map[int]int // pods created per completion index (-1: not Indexed)

	// The controller: its memory, its informer view, its work queue.
	mem        memory
	view       view
	podStream  stream
	jobStream  stream
	holding    bool       // a sync is under way: watch events wait for its end
	syncAt     *time.Time // the pending sync, if any
	apiRetries int        // consecutive failed syncs, for the rate limiter
	listed     int64      // pods handed to Reconcile in Snapshot.Pods, summed over syncs (benchmarks)

	events eventQueue
	seq    int64

	result Result
	// ttlOutcome is the outcome of a finished Job that the TTL-after-
	// finished controller is yet to delete.
	ttlOutcome Outcome
	done       bool
	check      *checker

	// finalizersFirst sabotages the write-ahead order (tests only): the
	// finalizer removals of a plan are carried out before its interim
	// status.
	finalizersFirst bool
}

// memory is what a controller keeps between syncs and loses when it crashes.
type memory struct {
	exp     expectations.Expectations
	backoff backoff.Record
}

// watchEvent is one change delivered by a watch stream.
type watchEvent struct {
	deleted bool
	pod     *corev1.Pod
	job     *batchv1.Job
}

// stream is a watch stream: events in order, held back while stalled.
type stream struct {
	queue   []watchEvent
	stalled bool
}

// simPod is a pod in the API server with its lifecycle.
type simPod struct {
	obj      *corev1.Pod // the stored object, replaced (never changed) on each write
	b        Behavior
	index    int // completion index, -1 when none
	attempt  int
	n        int // creation order
	epoch    int // bumped to cancel scheduled lifecycle events
	restarts int32
	started  bool
}

type evKind int

const (
	evSync evKind = iota
	evPodStart
	evPodExit
	evPodDisrupt
	evPodStop
	evPodRemove
	evPodDeleteByOther
	evInformerPods
	evInformerJob
	evInformerAll
	evJobChange
	evJobRemove
	evTTLCheck
)

type event struct {
	at     time.Time
	seq    int64
	kind   evKind
	uid    types.UID
	epoch  int
	change int
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// NewCluster returns a cluster holding job, defaulted as the API server
// would (jobspec.Default) and validated (jobspec.Validate); job itself is
// not modified. A Job without namespace gets "default", one without UID a
// UID drawn from the seed. The controller's first sync is due at
// cfg.Start.
func NewCluster(job *batchv1.Job, cfg Config) (*Cluster, error) {
	if job == nil {
		return nil, fmt.Errorf("jobsynctest: the Job is nil")
	}
	if cfg.Start.IsZero() {
		cfg.Start = DefaultStart
	}
	c := &Cluster{
		cfg:      cfg,
		opts:     cfg.Options,
		fin:      cfg.Options.TrackingFinalizer,
		maxSyncs: cfg.MaxSyncs,
		maxLag:   cfg.Faults.MaxLag,
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6a6f6273796e63)),
		now:      cfg.Start,
		pods:     map[types.UID]*simPod{},
		names:    map[string]bool{},
		attempts: map[int]int{},
		view:     newView(nil, cfg.Options, 0),
	}
	if c.fin == "" {
		c.fin = batchv1.JobTrackingFinalizer
	}
	if c.maxSyncs <= 0 {
		c.maxSyncs = DefaultMaxSyncs
	}
	if c.maxLag <= 0 {
		c.maxLag = 30 * time.Second
	}
	for _, p := range []float64{cfg.Faults.APIError, cfg.Faults.RefusedCreation, cfg.Faults.Crash, cfg.Faults.StaleView, cfg.Faults.SkewedView, cfg.Faults.PodDeletion} {
		if !(p >= 0 && p <= 1) { // NaN is neither
			return nil, fmt.Errorf("jobsynctest: fault probability %v is not in [0, 1]", p)
		}
	}
	j := job.DeepCopy()
	if j.Namespace == "" {
		j.Namespace = metav1.NamespaceDefault
	}
	if j.UID == "" {
		j.UID = c.newUID()
	}
	j = jobspec.Default(j)
	if errs := jobspec.Validate(j); len(errs) > 0 {
		return nil, fmt.Errorf("jobsynctest: invalid Job: %w", errs.ToAggregate())
	}
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	for _, ch := range cfg.Faults.JobChanges {
		if err := ch.validate(); err != nil {
			return nil, fmt.Errorf("jobsynctest: %w", err)
		}
		if ch.Scale != nil && !indexed {
			return nil, fmt.Errorf("jobsynctest: job change at %v: scale (completions and parallelism together) needs an Indexed Job", ch.At)
		}
	}
	if j.CreationTimestamp.IsZero() {
		j.CreationTimestamp = metav1.NewTime(cfg.Start)
	}
	c.rv++
	j.ResourceVersion = fmt.Sprint(c.rv)
	c.job, c.lastJob = j, j
	c.view.setJob(j)
	if cfg.Check {
		c.check = newChecker(c)
	}
	for i, ch := range cfg.Faults.JobChanges {
		c.schedule(event{at: cfg.Start.Add(ch.At), kind: evJobChange, change: i})
	}
	c.requestSync(cfg.Start)
	return c, nil
}

// Now is the clock reading of the cluster.
func (c *Cluster) Now() time.Time { return c.now }

// Job returns a copy of the Job as the API server holds it (as it last held
// it, once deleted).
func (c *Cluster) Job() *batchv1.Job { return c.lastJob.DeepCopy() }

// Pods returns copies of the pods in the API server, by name.
func (c *Cluster) Pods() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(c.pods))
	for _, sp := range c.pods {
		out = append(out, sp.obj.DeepCopy())
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// Done reports whether the run has ended (see Result.Outcome).
func (c *Cluster) Done() bool { return c.done }

// Result returns the record of the run so far.
func (c *Cluster) Result() Result {
	r := c.result
	r.Steps = slices.Clone(r.Steps)
	r.Violations = slices.Clone(r.Violations)
	r.Job = c.Job()
	if !c.cfg.DiscardPods {
		r.Pods = c.Pods()
	}
	r.End = c.now
	return r
}

// Run steps until the Job has a terminal condition (Complete or Failed),
// is deleted and gone, nothing more can happen, or Config.MaxSyncs syncs
// have run, and returns the record. An error means the simulation itself
// could not go on (Reconcile refused the controller's view).
func (c *Cluster) Run() (Result, error) {
	for {
		_, ok, err := c.Step()
		if err != nil {
			return c.Result(), err
		}
		if !ok {
			return c.Result(), nil
		}
	}
}

// Step advances the clock to the next event (a pod event, a user's change
// to the Job, a stalled watch stream catching up, or the controller's next
// sync, whichever comes first) and carries it out. It returns false, and no
// record, once the run has ended.
func (c *Cluster) Step() (StepRecord, bool, error) {
	if c.done {
		return StepRecord{}, false, nil
	}
	if c.result.Syncs >= c.maxSyncs {
		c.finish(OutcomeMaxSyncs)
		return StepRecord{}, false, nil
	}
	ev, ok := c.next()
	if !ok {
		c.finish(OutcomeStuck)
		return StepRecord{}, false, nil
	}
	if ev.at.After(c.now) {
		c.now = ev.at
	}
	var rec StepRecord
	var err error
	if ev.kind == evSync {
		rec, err = c.sync()
	} else {
		rec = c.handle(ev)
	}
	rec.Time = c.now
	c.afterStep(&rec)
	rec.Status = *c.lastJob.Status.DeepCopy()
	if c.check != nil {
		rec.Violations = append(rec.Violations, c.check.pending...)
		c.check.pending = nil
	}
	c.result.Violations = append(c.result.Violations, rec.Violations...)
	if !c.cfg.DiscardSteps {
		c.result.Steps = append(c.result.Steps, rec)
	}
	switch {
	case c.job == nil && c.ttlOutcome != "":
		c.finish(c.ttlOutcome)
	case c.job == nil:
		c.finish(OutcomeDeleted)
	case c.ttlOutcome != "":
		// Finished; the TTL-after-finished controller deletes it later.
	case isFinished(c.job) && c.job.Spec.TTLSecondsAfterFinished != nil && c.job.DeletionTimestamp == nil:
		// The TTL-after-finished controller sees the finished Job at once
		// and deletes it when its TTL runs out; the run goes on until the
		// Job is gone.
		c.ttlOutcome = OutcomeFailed
		if hasTrueCondition(c.job, batchv1.JobComplete) {
			c.ttlOutcome = OutcomeComplete
		}
		c.result.FinishedAt = c.now
		c.schedule(event{at: c.now, kind: evTTLCheck})
		if c.check != nil {
			// The end-of-run checks look at the finished Job now, before
			// the TTL controller deletes it.
			c.check.atEnd(c.ttlOutcome)
			c.result.Violations = append(c.result.Violations, c.check.pending...)
			c.check.pending = nil
		}
	case hasTrueCondition(c.job, batchv1.JobComplete):
		c.finish(OutcomeComplete)
	case hasTrueCondition(c.job, batchv1.JobFailed):
		c.finish(OutcomeFailed)
	}
	return rec, true, err
}

func (c *Cluster) finish(o Outcome) {
	c.done = true
	if c.result.FinishedAt.IsZero() {
		c.result.FinishedAt = c.now
	}
	c.result.Outcome = o
	if c.check != nil && c.ttlOutcome == "" {
		c.check.atEnd(o)
		c.result.Violations = append(c.result.Violations, c.check.pending...)
		c.check.pending = nil
	}
}

// next pops the next event: the earliest in the queue, or the pending sync
// when it comes first. Pod events of an earlier epoch of their pod, or of a
// pod gone, are dropped.
func (c *Cluster) next() (event, bool) {
	for {
		if len(c.events) == 0 && c.syncAt == nil {
			return event{}, false
		}
		if c.syncAt != nil && (len(c.events) == 0 || c.syncAt.Before(c.events[0].at)) {
			at := *c.syncAt
			c.syncAt = nil
			return event{at: at, kind: evSync}, true
		}
		ev := heap.Pop(&c.events).(event)
		switch ev.kind {
		case evPodStart, evPodExit, evPodDisrupt, evPodStop, evPodDeleteByOther:
			sp := c.pods[ev.uid]
			if sp == nil || sp.epoch != ev.epoch {
				continue
			}
		}
		return ev, true
	}
}

func (c *Cluster) schedule(ev event) {
	c.seq++
	ev.seq = c.seq
	heap.Push(&c.events, ev)
}

// requestSync puts the Job in the controller's work queue for at; a sync
// already due earlier covers it.
func (c *Cluster) requestSync(at time.Time) {
	if at.Before(c.now) {
		at = c.now
	}
	if c.syncAt == nil || at.Before(*c.syncAt) {
		c.syncAt = &at
	}
}

// afterStep lets the garbage collector act on a Job being deleted: its pods
// are deleted, and once none is left the Job goes.
func (c *Cluster) afterStep(rec *StepRecord) {
	if c.job == nil || c.job.DeletionTimestamp == nil {
		return
	}
	left := 0
	for _, sp := range c.sortedPods() {
		left++
		if sp.obj.DeletionTimestamp == nil {
			c.deletePod(sp)
			rec.Detail = appendDetail(rec.Detail, "garbage collector deletes "+sp.obj.Name)
		}
	}
	if left == 0 {
		c.schedule(event{at: c.now, kind: evJobRemove})
	}
}

func (c *Cluster) sortedPods() []*simPod {
	out := make([]*simPod, 0, len(c.pods))
	for _, sp := range c.pods {
		out = append(out, sp)
	}
	slices.SortFunc(out, func(a, b *simPod) int { return a.n - b.n })
	return out
}

func appendDetail(d, more string) string {
	if d == "" {
		return more
	}
	return d + "; " + more
}

func hasTrueCondition(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, cond := range job.Status.Conditions {
		if cond.Type == t && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func hasFinalizer(p *corev1.Pod, f string) bool { return slices.Contains(p.Finalizers, f) }

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func (c *Cluster) newUID() types.UID {
	a, b := c.rng.Uint64(), c.rng.Uint64()
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff))
}

func (c *Cluster) newName(prefix string) string {
	for {
		buf := []byte(prefix)
		for range 5 {
			buf = append(buf, nameAlphabet[c.rng.IntN(len(nameAlphabet))])
		}
		if n := string(buf); !c.names[n] {
			c.names[n] = true
			return n
		}
	}
}

func (c *Cluster) nextRV() string {
	c.rv++
	return fmt.Sprint(c.rv)
}
