package jobcontroller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// heldWorld drives the held pods' handlers and, beside them, a client-go
// indexer fed the same events: what the controller listed before it held
// its pods, and what every sync must decide as if it had listed.
type heldWorld struct {
	t    *testing.T
	c    *Controller
	idx  cache.Indexer
	rng  *rand.Rand
	pods map[string]*corev1.Pod // by name, the indexer's current pods
	rv   int
	// labels are the orphans' labels: those of the first Job's pods.
	labels map[string]string
	// seen counts the pods each check found listed, active, succeeded
	// and settled, so that a run shows it tried each.
	seen [4]int
}

func newHeldWorld(t *testing.T, seed uint64) *heldWorld {
	c, err := New(fake.NewClientset(), Options{ControllerName: testController, Recorder: record.NewFakeRecorder(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if c.held == nil {
		t.Fatal("the controller holds no pods by default")
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{kit.PodIndex: kit.IndexPod})
	return &heldWorld{t: t, c: c, idx: idx, rng: rand.New(rand.NewPCG(seed, 1)), pods: map[string]*corev1.Pod{}}
}

func (w *heldWorld) add(p *corev1.Pod) {
	w.rv++
	p.ResourceVersion = strconv.Itoa(w.rv)
	if err := w.idx.Add(p); err != nil {
		w.t.Fatal(err)
	}
	w.pods[p.Name] = p
	w.c.held.add(p)
}

func (w *heldWorld) update(old, cur *corev1.Pod) {
	w.rv++
	cur.ResourceVersion = strconv.Itoa(w.rv)
	if err := w.idx.Update(cur); err != nil {
		w.t.Fatal(err)
	}
	w.pods[cur.Name] = cur
	w.c.held.update(old, cur)
}

// remove deletes the pod, the handler getting it as it was or, after a
// relist, as a tombstone holding an older version of it.
func (w *heldWorld) remove(p *corev1.Pod, tombstone *corev1.Pod) {
	if err := w.idx.Delete(p); err != nil {
		w.t.Fatal(err)
	}
	delete(w.pods, p.Name)
	if tombstone != nil {
		w.c.held.remove(cache.DeletedFinalStateUnknown{Key: p.Namespace + "/" + p.Name, Obj: tombstone})
	} else {
		w.c.held.remove(p)
	}
}

// pod is a pod named name controlled by job (an orphan when job is nil),
// carrying the tracking finalizer.
func (w *heldWorld) pod(job *batchv1.Job, name string, uid types.UID) *corev1.Pod {
	labels := map[string]string{}
	for k, v := range w.labels {
		labels[k] = v
	}
	if job != nil {
		labels = job.Spec.Template.DeepCopy().Labels
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: uid,
			Labels: labels, Finalizers: []string{w.c.finalizer},
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, w.rng.IntN(60), 0, time.UTC))},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if job != nil {
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}
		if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion {
			ix := strconv.Itoa(w.rng.IntN(int(*job.Spec.Completions)))
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: ix}
			p.Labels[batchv1.JobCompletionIndexAnnotation] = ix
		}
	}
	return p
}

// step makes one random change among the pods of job and others.
func (w *heldWorld) step(jobs []*batchv1.Job, n *int) {
	names := make([]string, 0, len(w.pods))
	for name := range w.pods {
		names = append(names, name)
	}
	slices.Sort(names) // map order is random; a seed's run is not
	pick := func() *corev1.Pod { return w.pods[names[w.rng.IntN(len(names))]] }
	switch r := w.rng.IntN(20); {
	case r < 6 || len(names) == 0:
		*n++
		var owner *batchv1.Job
		if w.rng.IntN(8) > 0 {
			owner = jobs[w.rng.IntN(len(jobs))]
		}
		w.add(w.pod(owner, fmt.Sprintf("p%d", *n), types.UID(fmt.Sprintf("u%d", *n))))
	case r < 13:
		// The kubelet, or the controller, moves the pod on.
		old := pick()
		cur := old.DeepCopy()
		switch w.rng.IntN(5) {
		case 0:
			cur.Status.Phase = corev1.PodRunning
			cur.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		case 1:
			cur.Status.Phase = corev1.PodSucceeded
		case 2:
			cur.Status.Phase = corev1.PodFailed
		case 3:
			cur.Finalizers = nil
		case 4:
			now := metav1.NewTime(time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC))
			cur.DeletionTimestamp = &now
		}
		w.update(old, cur)
	case r < 14:
		// Released (or adopted): the controller reference changes.
		old := pick()
		cur := old.DeepCopy()
		if len(cur.OwnerReferences) > 0 {
			cur.OwnerReferences = nil
		} else {
			cur.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(jobs[0], batchv1.SchemeGroupVersion.WithKind("Job"))}
		}
		w.update(old, cur)
	case r < 15:
		// A resync: the same version again.
		p := pick()
		w.c.held.update(p, p)
	case r < 16:
		// Deleted and created again under its name, seen as an update
		// to another UID (a relist that missed the deletion).
		old := pick()
		*n++
		cur := old.DeepCopy()
		cur.UID = types.UID(fmt.Sprintf("u%d", *n))
		cur.Status.Phase = corev1.PodPending
		w.update(old, cur)
	case r < 18:
		w.remove(pick(), nil)
	default:
		// Gone during a watch gap: a tombstone holding its last version.
		p := pick()
		w.remove(p, p.DeepCopy())
	}
}

// check compares, for job, the held snapshot with the listed one: the
// pods held, counted and listed are the listed pods, and Reconcile plans
// alike from both.
func (w *heldWorld) check(job *batchv1.Job, when string) {
	w.t.Helper()
	listed, err := kit.IndexerPods(w.idx)(job)
	if err != nil {
		w.t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	want, werr := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: now, Pods: listed}, w.c.opts.Sync)

	w.c.held.mu.Lock()
	s, err := w.c.held.snapshot(job)
	if err != nil {
		w.c.held.mu.Unlock()
		w.t.Fatal(err)
	}
	snap := jobsync.Snapshot{Job: job, Now: now, Pods: s.pods, Active: s.active, Succeeded: s.done, SettledPods: s.settled}
	got, gerr := jobsync.Reconcile(snap, w.c.opts.Sync)
	frozen := w.c.held.listed(snap)
	w.c.held.mu.Unlock()

	w.seen[0] += len(s.pods)
	w.seen[1] += s.active.Len()
	w.seen[2] += s.done.Len()
	w.seen[3] += s.settled
	if n := len(s.pods) + s.active.Len() + s.done.Len() + s.settled; n != len(listed) {
		w.t.Fatalf("%s: %d pods held for %s (%d listed, %d active, %d succeeded, %d settled), %d in the informer's index",
			when, n, job.UID, len(s.pods), s.active.Len(), s.done.Len(), s.settled, len(listed))
	}
	if (werr == nil) != (gerr == nil) {
		w.t.Fatalf("%s: Reconcile on the listed pods: %v; on the held ones: %v", when, werr, gerr)
	}
	if !reflect.DeepEqual(want, got) {
		w.t.Fatalf("%s: the held pods plan otherwise than the listed ones:\nlisted: %+v\nheld:   %+v", when, want, got)
	}
	if len(frozen.Pods)+frozen.SettledPods != len(listed) || frozen.Active != nil || frozen.Succeeded != nil {
		w.t.Fatalf("%s: the listed copy of the held snapshot holds %d pods and %d settled, want %d in all", when, len(frozen.Pods), frozen.SettledPods, len(listed))
	}
	again, err := jobsync.Reconcile(frozen, w.c.opts.Sync)
	if err != nil || !reflect.DeepEqual(want, again) {
		w.t.Fatalf("%s: the listed copy of the held snapshot plans otherwise (%v):\nlisted: %+v\ncopy:   %+v", when, err, want, again)
	}
}

// TestHeldPodsDecideAsTheListedOnes feeds random pod events (adds, phase
// changes, finalizer removals, deletions as pods and as tombstones, releases and adoptions, resyncs, a pod replaced under its
// name by another UID) and orphans and another Job's pods beside, and
// checks after each batch that the held pods of each Job are its listed
// pods, none twice and none missing, and plan alike. A Job recreated under
// its name (another UID) starts from its own pods.
func TestHeldPodsDecideAsTheListedOnes(t *testing.T) {
	for _, mode := range []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion} {
		var seen [4]int
		defer func() {
			// SucceededPods takes no pod of an Indexed Job.
			if seen[0] == 0 || seen[1] == 0 || seen[3] == 0 || mode == batchv1.NonIndexedCompletion && seen[2] == 0 {
				t.Errorf("%s: the checks found %v pods listed, active, succeeded and settled: some kind never came up", mode, seen)
			}
		}()
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", mode, seed), func(t *testing.T) {
				w := newHeldWorld(t, seed)
				mkJob := func(uid types.UID, name string) *batchv1.Job {
					job := testJob(uid)
					job.Name = name
					job.Spec.Parallelism, job.Spec.Completions = new(int32(8)), new(int32(12))
					job.Spec.CompletionMode = &mode
					return jobspec.Default(job)
				}
				job, other := mkJob("job-1", "pi"), mkJob("job-2", "other")
				// Orphans that the first Job's selector matches.
				w.labels = job.Spec.Template.Labels
				jobs := []*batchv1.Job{job, other}
				n := 0
				for round := range 40 {
					for range 1 + w.rng.IntN(6) {
						w.step(jobs, &n)
					}
					w.check(job, fmt.Sprintf("round %d", round))
					if round%5 == 4 {
						w.check(other, fmt.Sprintf("round %d (the other Job)", round))
					}
					if round == 20 {
						// The Job is deleted and created again under its name.
						again := mkJob("job-1-again", "pi")
						jobs[0], job = again, again
						w.check(job, "the Job created again")
					}
				}
				for i := range seen {
					seen[i] += w.seen[i]
				}
				if got, want := w.c.held.len(), len(w.pods); got != want {
					t.Errorf("%d pods held, %d in the informer", got, want)
				}
				for _, p := range w.pods {
					w.remove(p, nil)
				}
				if len(w.c.held.groups) != 0 || len(w.c.held.where) != 0 {
					t.Errorf("every pod is gone; %d groups and %d pods still held", len(w.c.held.groups), len(w.c.held.where))
				}
			})
		}
	}
}

// TestStartSeesEveryPod: the workers start once the held pods have had
// the informer's first list (the handler registration's HasSynced), so
// the first sync of a Job whose pods exist creates none. The fake
// informer's handler is fast, so this is a smoke test of the start, not
// a forced race.
func TestStartSeesEveryPod(t *testing.T) {
	job := testJob("job-uid")
	job.Spec.Parallelism, job.Spec.Completions = new(int32(300)), new(int32(300))
	objs := []runtime.Object{job}
	c0, _ := New(fake.NewClientset(), Options{ControllerName: testController})
	for i := range 300 {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pi-%d", i), UID: types.UID(fmt.Sprintf("pod-%d", i)),
				Labels: job.Spec.Template.Labels, Finalizers: []string{c0.finalizer},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
			Spec:   job.Spec.Template.Spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		objs = append(objs, p)
	}
	client := fake.NewClientset(objs...)
	c, err := New(client, Options{ControllerName: testController, Recorder: record.NewFakeRecorder(1000)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		synced := false
		for _, a := range client.Actions() {
			if a.GetVerb() == "update" && a.GetResource().Resource == "jobs" && a.GetSubresource() == "status" {
				synced = true
			}
		}
		if synced || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var status, creates int
	for _, a := range client.Actions() {
		switch {
		case a.GetVerb() == "create" && a.GetResource().Resource == "pods":
			creates++
		case a.GetVerb() == "update" && a.GetSubresource() == "status":
			status++
		}
	}
	if status == 0 {
		t.Fatal("the Job was never synced")
	}
	if creates != 0 {
		t.Errorf("the first sync created %d pods although the Job's 300 exist", creates)
	}
	if got := c.held.len(); got != 300 {
		t.Errorf("%d pods held, want 300", got)
	}
}
