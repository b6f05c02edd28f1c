// Package upstream runs one sync of the real Job controller of
// k8s.io/kubernetes v1.36.5, or v1.37.x with the upstream_1_37 tag (its unexported syncJob) on a snapshot and
// records everything it decides: pod creates, deletes and patches, status
// writes, requeues, events, and the controller memory it leaves behind.
//
// Each Run builds a fresh controller the way upstream's unit tests do (fake
// clientset, informer indexers filled directly, no informer started), swaps
// its side-effect seams for recorders, seeds its memory from the snapshot,
// calls syncJob once and tears the controller down again.
package upstream

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"unsafe"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	jobctrl "k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

// Input is one snapshot: the same fields as jobsync.Snapshot, plus feature
// gates that differ from their v1.36 defaults.
type Input struct {
	Job          *batchv1.Job
	Pods         []*corev1.Pod
	Now          time.Time
	Expectations expectations.Expectations
	Backoff      backoff.Record
	// Gates overrides feature gates (by name) for this sync only. Gates
	// locked to their default in v1.36 cannot be overridden.
	Gates map[string]bool
	// SchedulingObjects are put in the controller's scheduling informers
	// (read only with the WorkloadWithJob gate on). Their API version is
	// the release's (scheduling_*.go).
	SchedulingObjects
	// PodOrder, when set, is the order in which the informer hands the
	// Job's pods to the controller (a real informer's order is that of a
	// map: any order is possible). Nil leaves the indexer's own order.
	PodOrder func(a, b *corev1.Pod) int
}

// Result is everything one upstream sync did, in the vocabulary of
// jobsync.Plan.
type Result struct {
	// Creates are the pods as they would be sent to the API server, in the
	// order the (parallel) create calls happened to arrive.
	Creates []*corev1.Pod
	// Deletes are the delete calls, in arrival order.
	Deletes []Deletion
	// FinalizerRemovals are the pods whose tracking finalizer the tracking
	// step (removeTrackingFinalizerFromPods) removed, in arrival order.
	FinalizerRemovals []string
	// SchedulingCreates are the scheduling objects the sync created through
	// the API, as sent.
	SchedulingCreates
	// Adoptions and Releases are the owner-reference patches of claiming,
	// with their bodies.
	Adoptions, Releases []Claim
	// OtherPatches are patches of no known kind (expected to be empty).
	OtherPatches []string
	// Writes are the status writes, in order.
	Writes []StatusWrite
	// Requeues are the delays of the delayed re-queues of the Job.
	Requeues []time.Duration
	// Events are the events recorded on the Job, in order.
	Events []Event
	// Expectations and Backoff are the controller's memory after the sync.
	Expectations expectations.Expectations
	Backoff      backoff.Record
	// Err is what syncJob returned (nil when all went well).
	Err error
	// Log is every recorded call, in order, for people.
	Log []string

	deleteFinalizerPatches []string
}

// Deletion is one delete call.
type Deletion struct {
	Pod string
	// Site is the upstream method that issued it: "deleteJobPods" (scale
	// down, suspend: finalizer patch first) or "deleteActivePods" (the Job is
	// finishing: finalizers kept).
	Site string
	// FinalizerPatchedFirst says deleteJobPods sent the finalizer-removal
	// patch for this pod before the delete.
	FinalizerPatchedFirst bool
}

// Claim is one claim patch: the pod and the patch body as sent.
type Claim struct {
	Pod   string
	Patch string
}

// StatusWrite is one status update.
type StatusWrite struct {
	Site   string
	Final  bool // written after finalizer removals (Plan.Status); else Plan.InterimStatus
	Status batchv1.JobStatus
	// Unexpected is set for a write from any other call site.
	Unexpected bool
}

// Event is one recorded event.
type Event struct {
	Type, Reason, Message string
}

// gateMu serialises syncs that change feature gates (global state) against
// all others; syncs at the default gates run in parallel.
var gateMu sync.RWMutex

// Run performs one upstream sync of in. The error is for a snapshot the
// driver cannot set up (a locked gate, a missing job); what syncJob itself
// returns, or a panic inside it, is in Result.Err.
func Run(in Input) (res Result, err error) {
	if in.Job == nil {
		return res, fmt.Errorf("no job")
	}
	if len(in.Gates) == 0 {
		gateMu.RLock()
		defer gateMu.RUnlock()
	} else {
		gateMu.Lock()
		defer gateMu.Unlock()
		restore, err := setGates(in.Gates)
		if err != nil {
			return res, err
		}
		defer restore()
	}
	return run(in)
}

func setGates(gates map[string]bool) (restore func(), err error) {
	prev := make(map[string]bool, len(gates))
	for name := range gates {
		prev[name] = utilfeature.DefaultFeatureGate.Enabled(featureName(name))
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
		return nil, fmt.Errorf("feature gates %v: %w", gates, err)
	}
	return func() {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(prev); err != nil {
			panic(err)
		}
	}, nil
}

func run(in Input) (res Result, err error) {
	rec := &recorder{res: &res}
	d, err := newDriven(in.Job, in.Now, rec)
	if err != nil {
		return res, err
	}
	defer d.close()
	jm, key := d.jm, d.key

	seeded := seedExpectations(jm, key, in)
	seedFinalizerExpectations(jm, key, in.Expectations.FinalizerRemovals.Sorted())
	if in.Expectations.JobFinished {
		fieldPtr[sync.Map](jm, "finishedJobExpectations").Store(in.Job.UID, struct{}{})
	}
	if b := in.Backoff; b.FailuresAfterLastSuccess != 0 || b.LastFailureTime != nil {
		seedBackoff(jm, key, b.FailuresAfterLastSuccess, b.LastFailureTime)
	}

	for _, p := range in.Pods {
		if err := d.podIndexer.Add(p.DeepCopy()); err != nil {
			return res, err
		}
	}
	if err := d.addSchedulingObjects(in.SchedulingObjects); err != nil {
		return res, err
	}
	d.client.ClearActions()
	if in.PodOrder != nil {
		*fieldPtr[cache.Indexer](jm, "podIndexer") = orderedIndexer{d.podIndexer, in.PodOrder}
	}

	res.Err = callRecovering(d.sync)
	res.SchedulingCreates = d.schedulingCreates()

	res.Expectations = readExpectations(jm, key, in, seeded)
	if f, last, ok := readBackoff(jm, key); ok {
		res.Backoff = backoff.Record{FailuresAfterLastSuccess: f, LastFailureTime: last}
	}
	return res, nil
}

// sideEffects takes every side effect of one upstream sync: it is the
// controller's pod control and event recorder, its status-update and
// patch handlers, and it receives the re-queues of its work queue. The
// conformance recorder (recorder.go) keeps them all; the benchmarks' sink
// only counts them.
type sideEffects interface {
	controller.PodControlInterface
	record.EventRecorder
	updateStatus(context.Context, *batchv1.Job) (*batchv1.Job, error)
	patchJob(context.Context, *batchv1.Job, []byte) error
	requeue(item string, after time.Duration)
}

// driven is an upstream controller built for one syncJob call on one Job.
type driven struct {
	ctx        context.Context
	key        string
	jm         *jobctrl.Controller
	queue      workqueue.TypedRateLimitingInterface[string] // its own, for close
	podIndexer cache.Indexer                                // empty: the caller adds the pods
	client     *fake.Clientset
	factory    informers.SharedInformerFactory
}

// newDriven builds the controller through its exported constructor, sets
// its clock to now, swaps its side-effect seams for fx and puts a copy of
// job in its informer. The caller adds the pods to podIndexer, may seed
// the controller's memory, and must call close.
func newDriven(job *batchv1.Job, now time.Time, fx sideEffects) (*driven, error) {
	ctx := klog.NewContext(context.Background(), logr.Discard())
	job = job.DeepCopy()
	client := fake.NewSimpleClientset(job.DeepCopy())
	factory := informers.NewSharedInformerFactory(client, 0)
	podInformer := factory.Core().V1().Pods()
	jobInformer := factory.Batch().V1().Jobs()
	jm, err := newController(ctx, client, factory, podInformer, jobInformer)
	if err != nil {
		return nil, err
	}
	d := &driven{
		ctx:        ctx,
		key:        job.Namespace + "/" + job.Name,
		jm:         jm,
		queue:      *fieldPtr[workqueue.TypedRateLimitingInterface[string]](jm, "queue"),
		podIndexer: podInformer.Informer().GetIndexer(),
		client:     client,
		factory:    factory,
	}
	*fieldPtr[clock.WithTicker](jm, "clock") = clocktesting.NewFakeClock(now)
	*fieldPtr[controller.PodControlInterface](jm, "podControl") = fx
	*fieldPtr[func(context.Context, *batchv1.Job) (*batchv1.Job, error)](jm, "updateStatusHandler") = fx.updateStatus
	if hasField(jm, "patchJobHandler") { // gone in v1.37, where nothing patched the Job through it
		*fieldPtr[func(context.Context, *batchv1.Job, []byte) error](jm, "patchJobHandler") = fx.patchJob
	}
	*fieldPtr[record.EventRecorder](jm, "recorder") = fx
	*fieldPtr[workqueue.TypedRateLimitingInterface[string]](jm, "queue") = requeueHook{d.queue, fx}
	if err := jobInformer.Informer().GetIndexer().Add(job); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// sync calls upstream's syncJob once.
func (d *driven) sync() error {
	syncJob := *fieldPtr[func(context.Context, string) error](d.jm, "syncHandler")
	return syncJob(d.ctx, d.key)
}

func (d *driven) close() { shutdown(d.jm, d.queue) }

// requeueHook is the controller's work queue: it hands the delays of Add
// and AddAfter (the deadline and backoff re-syncs, i.e. Plan.RequeueAfter)
// to the side effects and passes nothing on.
type requeueHook struct {
	workqueue.TypedRateLimitingInterface[string]
	fx sideEffects
}

func (q requeueHook) AddAfter(item string, after time.Duration) { q.fx.requeue(item, after) }

func (q requeueHook) Add(item string) { q.fx.requeue(item, 0) }

// orderedIndexer hands out the pods of an index lookup in a fixed order.
type orderedIndexer struct {
	cache.Indexer
	order func(a, b *corev1.Pod) int
}

func (o orderedIndexer) ByIndex(name, value string) ([]any, error) {
	objs, err := o.Indexer.ByIndex(name, value)
	slices.SortStableFunc(objs, func(a, b any) int {
		pa, oka := a.(*corev1.Pod)
		pb, okb := b.(*corev1.Pod)
		if !oka || !okb {
			return 0
		}
		return o.order(pa, pb)
	})
	return objs, err
}

func callRecovering(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream syncJob panicked: %v", r)
		}
	}()
	return f()
}

// shutdown stops the goroutines the constructor started: the event
// broadcaster and both work queues.
func shutdown(jm *jobctrl.Controller, queue workqueue.TypedRateLimitingInterface[string]) {
	(*fieldPtr[record.EventBroadcaster](jm, "broadcaster")).Shutdown()
	queue.ShutDown()
	// The orphan queue's item type is unexported; call ShutDown by reflection.
	f := reflect.ValueOf(jm).Elem().FieldByName("orphanQueue")
	q := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	q.MethodByName("ShutDown").Call(nil)
}

// seedExpectations gives upstream's ControllerExpectations the snapshot's
// pending creations and deletions.
//
// Upstream decides expiry with the real clock, not the controller's:
// isExpired asks whether more than ExpectationsTimeout passed on the real
// clock since the record's timestamp, and nothing else reads that
// timestamp. Mapping the snapshot's age (Now - SetAt) onto the real clock
// is not exact: the real time that passes before syncJob asks tips a record
// set exactly ExpectationsTimeout before Now into expiry. So the verdict is
// taken from the snapshot's own clock, with upstream's rule (strictly older
// than the timeout), and the timestamp is put far on that side of the real
// clock: an hour past expiry, or the real now (five minutes of margin).
func seedExpectations(jm *jobctrl.Controller, key string, in Input) *controller.ControlleeExpectations {
	e := in.Expectations
	if e.Creations == 0 && e.Deletions == 0 && e.SetAt.IsZero() {
		return nil
	}
	store := expectationsStore(jm)
	if err := store.SetExpectations(klog.Background(), key, int(e.Creations), int(e.Deletions)); err != nil {
		panic(err)
	}
	exp, _, _ := store.GetExpectations(key)
	setControlleeTimestamp(exp, realTimestamp(in.Now, e.SetAt, time.Now()))
	return exp
}

// realTimestamp is the real-clock timestamp that makes upstream's
// isExpired, asked at realNow or within minutes after, give the verdict its
// rule gives on the snapshot's clock for a record set at setAt and read at
// now.
func realTimestamp(now, setAt, realNow time.Time) time.Time {
	if expired(now, setAt) {
		return realNow.Add(-controller.ExpectationsTimeout - time.Hour)
	}
	return realNow
}

// expired reports whether upstream holds pod expectations set at setAt
// expired at now: strictly more than ExpectationsTimeout older. (time.Time's
// Sub saturates, so clocks centuries apart are compared correctly.)
func expired(now, setAt time.Time) bool {
	return now.Sub(setAt) > controller.ExpectationsTimeout
}

func expectationsStore(jm *jobctrl.Controller) *controller.ControllerExpectations {
	store, ok := (*fieldPtr[controller.ControllerExpectationsInterface](jm, "expectations")).(*controller.ControllerExpectations)
	if !ok {
		panic("upstream Job controller expectations are not a *controller.ControllerExpectations")
	}
	return store
}

// readExpectations reads the controller's memory back as an
// expectations.Expectations. A record that is not the seeded one was set
// during this sync, i.e. at in.Now.
func readExpectations(jm *jobctrl.Controller, key string, in Input, seeded *controller.ControlleeExpectations) expectations.Expectations {
	var out expectations.Expectations
	if exp, ok, _ := expectationsStore(jm).GetExpectations(key); ok {
		out.Creations, out.Deletions = exp.GetExpectations()
		if exp == seeded {
			out.SetAt = in.Expectations.SetAt
		} else {
			out.SetAt = in.Now
		}
	}
	out.FinalizerRemovals = expectations.NewUIDSet(readFinalizerExpectations(jm, key)...)
	_, out.JobFinished = fieldPtr[sync.Map](jm, "finishedJobExpectations").Load(types.UID(in.Job.UID))
	return out
}

func featureName(name string) featuregate.Feature { return featuregate.Feature(name) }
