package traps

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// rig carries plans out by hand, one sync at a time, against a real API
// server whose requests go through faults: the tests decide when a sync
// happens and what fails, and read the memory afterwards.
type rig struct {
	t        *testing.T
	ctx      context.Context
	client   kubernetes.Interface // through faults
	faults   *faults
	store    *memory.Store
	recorder *record.FakeRecorder
	exec     *executor.Executor
	opts     jobsync.Options
	// seen is the rig's poll-based informer: the pods as the previous sync
	// listed them, diffed against the next list to feed the Observer.
	seen map[types.UID]*corev1.Pod
}

func newRig(t *testing.T) *rig {
	srv := apiservertest.Start(t)
	f := &faults{}
	client, err := kubernetes.NewForConfig(f.wrap(srv.Config))
	if err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(1000)
	return &rig{
		t: t, ctx: context.Background(), client: client, faults: f,
		store:    memory.NewStore(),
		recorder: rec,
		exec:     &executor.Executor{Client: client, Recorder: rec, TrackingFinalizer: finalizer},
		opts:     jobsync.Options{ControllerName: controllerName, TrackingFinalizer: finalizer, BackoffBase: time.Second},
		seen:     map[types.UID]*corev1.Pod{},
	}
}

func (r *rig) create(job *batchv1.Job) *batchv1.Job {
	r.t.Helper()
	job, err := r.client.BatchV1().Jobs(job.Namespace).Create(r.ctx, job, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return job
}

func (r *rig) job(name string) *batchv1.Job {
	r.t.Helper()
	job, err := r.client.BatchV1().Jobs("default").Get(r.ctx, name, metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return job
}

// pods lists the Job's pods from the API server (the rig has no informer:
// each sync reads fresh).
func (r *rig) pods(job *batchv1.Job) []corev1.Pod {
	r.t.Helper()
	pods, err := podsOf(r.ctx, r.client, job)
	if err != nil {
		r.t.Fatal(err)
	}
	return pods
}

// sync reads the Job and its pods, reconciles and carries the plan out.
func (r *rig) sync(name string) (jobsync.Plan, executor.Result, error) {
	r.t.Helper()
	return r.syncView(r.job(name))
}

// syncView is sync on a view of the Job that may be stale (pods are read
// fresh).
func (r *rig) syncView(job *batchv1.Job) (jobsync.Plan, executor.Result, error) {
	r.t.Helper()
	// As an informer-fed controller does: the pods the Job controls, and
	// the orphans its selector matches.
	list, err := r.client.CoreV1().Pods(job.Namespace).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.observe(list.Items)
	sel, _ := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	// The list above fed the observer; the memory is read before the
	// Job's pods are taken from it, as Snapshot orders it.
	listPods := func(job *batchv1.Job) ([]*corev1.Pod, error) {
		var pods []*corev1.Pod
		for i := range list.Items {
			p := &list.Items[i]
			ref := metav1.GetControllerOfNoCopy(p)
			if ref != nil && ref.UID == job.UID || ref == nil && sel.Matches(labels.Set(p.Labels)) {
				pods = append(pods, p)
			}
		}
		return pods, nil
	}
	snap, err := r.store.Snapshot(job, time.Now(), listPods)
	if err != nil {
		r.t.Fatal(err)
	}
	plan, err := jobsync.Reconcile(snap, r.opts)
	if err != nil {
		r.t.Fatalf("Reconcile: %v", err)
	}
	res, err := r.exec.Execute(r.ctx, r.store.Begin(snap, r.opts, plan))
	return plan, res, err
}

func (r *rig) memory(job *batchv1.Job) memory.Memory {
	m, _ := r.store.Get(job.Namespace, job.Name, job.UID)
	return m
}

// events drains the recorded events.
func (r *rig) events() []string {
	var out []string
	for {
		select {
		case e := <-r.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// observe lowers the memory for what changed since the previous list, as
// the informer's events would.
func (r *rig) observe(items []corev1.Pod) {
	o := memory.Observer{Store: r.store, Finalizer: finalizer, Jobs: func(ns, name string) *batchv1.Job {
		job, err := r.client.BatchV1().Jobs(ns).Get(r.ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return job
	}}
	now := map[types.UID]*corev1.Pod{}
	for i := range items {
		p := &items[i]
		now[p.UID] = p
		if old, ok := r.seen[p.UID]; !ok {
			o.PodAdded(p)
		} else {
			o.PodUpdated(old, p)
		}
	}
	for uid, old := range r.seen {
		if now[uid] == nil {
			o.PodDeleted(old)
		}
	}
	r.seen = now
}
