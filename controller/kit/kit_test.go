package kit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/jobview"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

const finalizer = "example.com/tracking"

func testJob(ns, name string, uid types.UID) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid, ResourceVersion: "1"},
		Spec:       batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job": name}}},
	}
}

func testPod(ns, name string, owner *batchv1.Job, labels map[string]string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: labels,
		ResourceVersion: "1", Finalizers: []string{finalizer}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, batchv1.SchemeGroupVersion.WithKind("Job"))}
	}
	return p
}

func names(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	slices.Sort(out)
	return out
}

// TestIndexerPodsListsControlledPodsAndMatchingOrphans: a Job's pods are
// those it controls in its namespace and the orphans of its namespace its
// selector matches; not another Job's pods, not orphans elsewhere or with
// other labels, and no orphan at all for an empty selector.
func TestIndexerPodsListsControlledPodsAndMatchingOrphans(t *testing.T) {
	job, other := testJob("ns", "pi", "job-uid"), testJob("ns", "e", "other-uid")
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{kit.PodIndex: kit.IndexPod})
	for _, p := range []*corev1.Pod{
		testPod("ns", "owned", job, nil),
		testPod("ns", "others", other, map[string]string{"job": "pi"}),
		testPod("ns", "orphan", nil, map[string]string{"job": "pi"}),
		testPod("ns", "stranger", nil, map[string]string{"job": "e"}),
		testPod("elsewhere", "orphan", nil, map[string]string{"job": "pi"}),
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pods, err := kit.IndexerPods(idx)(job)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(pods), []string{"ns/orphan", "ns/owned"}; !slices.Equal(got, want) {
		t.Errorf("pods of the Job: %v, want %v", got, want)
	}
	job.Spec.Selector = &metav1.LabelSelector{}
	pods, err = kit.IndexerPods(idx)(job)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(pods), []string{"ns/owned"}; !slices.Equal(got, want) {
		t.Errorf("pods of a Job with an empty selector: %v, want %v", got, want)
	}
	job.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bad"}}}
	if _, err := kit.IndexerPods(idx)(job); err == nil {
		t.Error("a bad selector listed pods without an error")
	}
}

// fixture is a controller's caches around one Job, with the kit's parts on
// a fake client.
type fixture struct {
	client   *fake.Clientset
	jobIdx   cache.Indexer
	podIdx   cache.Indexer
	store    *memory.Store
	orphans  *kit.Orphans
	handlers kit.Handlers
	woken    map[string]time.Duration
}

func newFixture(t *testing.T, job *batchv1.Job, pods ...*corev1.Pod) *fixture {
	t.Helper()
	return newFixtureFor(t, schema.GroupVersionKind{}, job, pods...)
}

// newFixtureFor is newFixture for pods owned by owner (zero: Job), whose
// Job informer hands over objects of that kind: the Jobs themselves, or
// for another kind unstructured resources that the cache's View reads.
func newFixtureFor(t *testing.T, owner schema.GroupVersionKind, job *batchv1.Job, pods ...*corev1.Pod) *fixture {
	t.Helper()
	f := &fixture{
		jobIdx: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		podIdx: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		store:  memory.NewStore(),
		woken:  map[string]time.Duration{},
	}
	var objs []runtime.Object
	if job != nil {
		objs = append(objs, job)
		if err := f.jobIdx.Add(job); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		objs = append(objs, p)
		if err := f.podIdx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	f.client = fake.NewClientset(objs...)
	runs := func(j *batchv1.Job) bool { return j.Spec.ManagedBy == nil }
	jobs := kit.JobCache{
		Get: func(ns, name string) *batchv1.Job {
			o, ok, _ := f.jobIdx.GetByKey(ns + "/" + name)
			if !ok {
				return nil
			}
			return o.(*batchv1.Job)
		},
		List: func(ns string) ([]*batchv1.Job, error) {
			objs, err := f.jobIdx.ByIndex(cache.NamespaceIndex, ns)
			var out []*batchv1.Job
			for _, o := range objs {
				out = append(out, o.(*batchv1.Job))
			}
			return out, err
		},
		Runs:  runs,
		Owner: owner,
	}
	if !owner.Empty() {
		jobs.View = func(obj any) *batchv1.Job {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return nil
			}
			view, err := jobview.FromUnstructured(u)
			if err != nil {
				t.Errorf("the view of %v: %v", obj, err)
				return nil
			}
			return view
		}
	}
	podCache := kit.PodCache{
		Get: func(ns, name string) (*corev1.Pod, error) {
			o, ok, _ := f.podIdx.GetByKey(ns + "/" + name)
			if !ok {
				return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
			}
			return o.(*corev1.Pod), nil
		},
		Select: func(ns string, sel labels.Selector) ([]*corev1.Pod, error) {
			objs, err := f.podIdx.ByIndex(cache.NamespaceIndex, ns)
			var out []*corev1.Pod
			for _, o := range objs {
				if p := o.(*corev1.Pod); sel.Matches(labels.Set(p.Labels)) {
					out = append(out, p)
				}
			}
			return out, err
		},
	}
	f.orphans = kit.NewOrphans(f.client, finalizer, jobs, podCache)
	t.Cleanup(f.orphans.ShutDown)
	f.handlers = kit.Handlers{
		Observer: memory.Observer{Store: f.store, Finalizer: finalizer, Jobs: jobs.Get, Owner: owner},
		Jobs:     jobs,
		Orphans:  f.orphans,
		Enqueue:  func(j *batchv1.Job, d time.Duration) { f.woken[j.Namespace+"/"+j.Name] = d },
	}
	return f
}

// queued drains the orphan queue without releasing anything.
func (f *fixture) queued() []string {
	var out []string
	for f.orphans.Len() > 0 {
		k, _ := f.orphans.Get()
		f.orphans.Done(k)
		f.orphans.Forget(k)
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) patched() []string {
	var out []string
	for _, a := range f.client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == "pods" {
			out = append(out, p.GetNamespace()+"/"+p.GetName())
		}
	}
	return out
}

// TestOrphansReleaseOnlyPodsNoLiveJobControls: the finalizer comes off a
// pod whose Job is gone, and off a pod of a finished Job; a pod of a live
// Job, a pod without the finalizer and a pod controlled by something else
// than a Job are left alone.
func TestOrphansReleaseOnlyPodsNoLiveJobControls(t *testing.T) {
	live, gone, done := testJob("ns", "live", "live-uid"), testJob("ns", "gone", "gone-uid"), testJob("ns", "done", "done-uid")
	done.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	bare := testPod("ns", "bare", gone, nil)
	bare.Finalizers = nil
	rs := testPod("ns", "rs", nil, nil)
	rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "r", UID: "r", Controller: new(true)}}
	f := newFixture(t, live, testPod("ns", "of-live", live, nil), testPod("ns", "of-gone", gone, nil), testPod("ns", "of-done", done, nil), bare, rs)
	if err := f.jobIdx.Add(done); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"ns/of-live", "ns/of-gone", "ns/of-done", "ns/bare", "ns/rs", "ns/missing"} {
		if err := f.orphans.Release(context.Background(), key); err != nil {
			t.Errorf("Release(%s): %v", key, err)
		}
	}
	if got, want := f.patched(), []string{"ns/of-gone", "ns/of-done"}; !slices.Equal(got, want) {
		t.Errorf("finalizers taken off %v, want %v", got, want)
	}
	p, err := f.client.CoreV1().Pods("ns").Get(context.Background(), "of-gone", metav1.GetOptions{})
	if err != nil || slices.Contains(p.Finalizers, finalizer) {
		t.Errorf("the orphan still has its finalizer (%v): %v", err, p)
	}
}

// TestOrphansRetryAFailedRelease: a release the API server refuses stays
// queued, rate-limited, until one succeeds.
func TestOrphansRetryAFailedRelease(t *testing.T) {
	f := newFixture(t, nil, testPod("ns", "p", testJob("ns", "gone", "gone-uid"), nil))
	fails := 1
	f.client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if fails > 0 {
			fails--
			return true, nil, errors.New("refused")
		}
		return false, nil, nil
	})
	f.orphans.Offer(f.mustPod(t, "p"))
	if !f.orphans.ProcessNext(context.Background()) {
		t.Fatal("the queue is shut down")
	}
	if n := f.orphans.NumRequeues("ns/p"); n != 1 {
		t.Fatalf("after a refused release the pod was requeued %d times, want 1", n)
	}
	f.orphans.ProcessNext(context.Background()) // waits for the rate limit (a second)
	if n := f.orphans.NumRequeues("ns/p"); n != 0 {
		t.Errorf("after a successful release the pod is still rate-limited (%d requeues)", n)
	}
	if got := f.patched(); len(got) != 2 {
		t.Errorf("%d patches, want 2 (one refused, one done)", len(got))
	}
}

func (f *fixture) mustPod(t *testing.T, name string) *corev1.Pod {
	o, ok, _ := f.podIdx.GetByKey("ns/" + name)
	if !ok {
		t.Fatalf("no pod %s", name)
	}
	return o.(*corev1.Pod)
}

// TestHandlersLowerTheMemoryAndWakeTheJob: a pod the Job created, seen by
// the informer, lowers the Job's creation count and wakes the Job after
// the batch period; a labelled orphan wakes the Jobs that select it; the
// deletion of the Job forgets its memory and offers its pods to Orphans.
func TestHandlersLowerTheMemoryAndWakeTheJob(t *testing.T) {
	job := testJob("ns", "pi", "job-uid")
	f := newFixture(t, job)
	now := time.Now()
	plan := jobsync.Plan{Expectations: jobsync.Snapshot{}.Expectations.ExpectCreations(1, now)}
	f.store.Begin(jobsync.Snapshot{Job: job, Now: now}, jobsync.Options{}, plan)

	pod := testPod("ns", "a", job, map[string]string{"job": "pi"})
	f.handlers.AddPod(pod)
	snap, _ := f.store.Snapshot(job, now, memory.NoPods)
	if !snap.Expectations.Satisfied(now, time.Hour) {
		t.Errorf("the pod's creation was not observed: %+v", snap.Expectations)
	}
	if d, ok := f.woken["ns/pi"]; !ok || d != kit.DefaultBatchPeriod {
		t.Errorf("the Job was woken %v (%v), want after %v", ok, d, kit.DefaultBatchPeriod)
	}

	clear(f.woken)
	f.handlers.AddPod(testPod("ns", "o", nil, map[string]string{"job": "pi"}))
	if _, ok := f.woken["ns/pi"]; !ok {
		t.Error("an orphan the Job selects did not wake it")
	}
	f.queued()

	clear(f.woken)
	if err := f.podIdx.Add(pod); err != nil {
		t.Fatal(err)
	}
	if err := f.jobIdx.Delete(job); err != nil {
		t.Fatal(err)
	}
	f.handlers.DeleteJob(cache.DeletedFinalStateUnknown{Key: "ns/pi", Obj: job})
	if d, ok := f.woken["ns/pi"]; !ok || d != 0 {
		t.Errorf("the deleted Job was woken %v (%v), want at once", ok, d)
	}
	if got, want := f.queued(), []string{"ns/a"}; !slices.Equal(got, want) {
		t.Errorf("offered to Orphans %v, want %v", got, want)
	}
}

// TestHandleInputErrorRecordsAWarningAndDoesNotRetry: an InputError ends
// as a Warning event and nil; another error is returned unchanged and
// records nothing.
func TestHandleInputErrorRecordsAWarningAndDoesNotRetry(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	x := &executor.Executor{Recorder: rec}
	job := testJob("ns", "pi", "job-uid")
	_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: time.Now()}, jobsync.Options{})
	var inErr *jobsync.InputError
	if !errors.As(err, &inErr) {
		t.Fatalf("an undefaulted Job gave %v, want an InputError", err)
	}
	if got := kit.HandleInputError(context.Background(), x, job, err); got != nil {
		t.Errorf("HandleInputError(InputError) = %v, want nil", got)
	}
	select {
	case ev := <-rec.Events:
		if !strings.HasPrefix(ev, "Warning "+kit.InvalidJobReason+" ") {
			t.Errorf("event %q, want a Warning %s", ev, kit.InvalidJobReason)
		}
	default:
		t.Error("no event recorded")
	}
	other := errors.New("the cache is gone")
	if got := kit.HandleInputError(context.Background(), x, job, other); got != other {
		t.Errorf("HandleInputError(other) = %v, want it unchanged", got)
	}
	if len(rec.Events) != 0 {
		t.Error("an event was recorded for an error that is not the Job's")
	}
}
