// Package benchsnap builds the snapshots of the benchmarks: one Job of N
// pods, N from 10 to 100,000, in the shapes whose cost matters to a Job
// controller. The library's benchmarks (jobsync/bench_test.go) and the
// conformance module's (conformance/upstream/bench_test.go, which runs the
// same snapshots through upstream's syncJob) both use it, so that the two
// sides are measured on identical input. It also holds the floors the
// library's time is compared with.
//
// Every builder is deterministic: the same arguments give deep-equal
// snapshots.
package benchsnap

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// Sizes are the numbers of pods measured.
var Sizes = []int{10, 100, 1000, 10000, 100000}

// Now is the clock reading of every snapshot; the Jobs started an hour
// before.
var Now = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

// Shape is one kind of sync, measured for each mode it lists and each size.
type Shape struct {
	// Name is the benchmark name: Steady, Tracking, ScaleDown, Suspend,
	// Create.
	Name string
	// Modes are the completion modes the shape is measured in.
	Modes []Mode
	// Build returns the snapshot of n pods.
	Build func(n int, m Mode) jobsync.Snapshot
	// Doc says what the sync has to do.
	Doc string
}

// Mode is the Job's completion mode.
type Mode string

// The two completion modes, as spec.completionMode names them.
const (
	NonIndexed Mode = "NonIndexed"
	Indexed    Mode = "Indexed"
)

// Shapes are the measured shapes, in the order of the tables.
var Shapes = []Shape{
	{
		Name: "Steady", Modes: []Mode{NonIndexed, Indexed}, Build: Steady,
		Doc: "every pod runs and is ready, the status says so: nothing to do",
	},
	{
		Name: "Tracking", Modes: []Mode{NonIndexed, Indexed}, Build: Tracking,
		Doc: "a third of the pods just succeeded: record them (at most 500 per sync), write, release their finalizers",
	},
	{
		Name: "ScaleDown", Modes: []Mode{NonIndexed, Indexed}, Build: ScaleDown,
		Doc: "parallelism dropped to a tenth: 90% of the pods are surplus, 500 (the per-sync cap) are deleted",
	},
	{
		Name: "Suspend", Modes: []Mode{NonIndexed, Indexed}, Build: Suspend,
		Doc: "the Job was just suspended: every pod is deleted (no cap), Suspended condition and event",
	},
	{
		Name: "Create", Modes: []Mode{Indexed}, Build: Create,
		Doc: "half the indexes (the odd ones) have no pod: min(n/2, 500) pods are created",
	},
}

// Job returns an API-server-defaulted Job with completions and parallelism
// n, started an hour before Now, whose status says n pods are active and
// ready.
func Job(n int, m Mode) *batchv1.Job {
	mode := batchv1.NonIndexedCompletion
	if m == Indexed {
		mode = batchv1.IndexedCompletion
	}
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:              "bench",
			Namespace:         "default",
			UID:               "6f1b1f4e-8a52-4e3b-9a55-3c0d6a1f0b01",
			ResourceVersion:   "1000",
			Generation:        1,
			CreationTimestamp: metav1.NewTime(Now.Add(-time.Hour)),
		},
		Spec: batchv1.JobSpec{
			Completions:    ptr(int32(n)),
			Parallelism:    ptr(int32(n)),
			CompletionMode: &mode,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "bench"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:    "main",
						Image:   "registry.k8s.io/busybox:1.36",
						Command: []string{"sh", "-c", "sleep 3600"},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("64Mi"),
						}},
					}},
				},
			},
		},
	})
	job.Status = batchv1.JobStatus{
		StartTime:               &metav1.Time{Time: Now.Add(-time.Hour)},
		Active:                  int32(n),
		Ready:                   ptr(int32(n)),
		Terminating:             ptr(int32(0)),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
	}
	return job
}

// Pod returns the i-th pod of job as a kubelet would report it in phase
// (Running pods are ready), with index ix (none when negative), created
// i milliseconds after the Job, carrying the tracking finalizer.
func Pod(job *batchv1.Job, i, ix int, phase corev1.PodPhase) *corev1.Pod {
	created := metav1.NewTime(job.CreationTimestamp.Add(time.Duration(i) * time.Millisecond))
	started := metav1.NewTime(created.Add(2 * time.Second))
	labels := make(map[string]string, len(job.Spec.Template.Labels)+1)
	for k, v := range job.Spec.Template.Labels {
		labels[k] = v
	}
	var annotations map[string]string
	name := fmt.Sprintf("%s-%07d", job.Name, i)
	if ix >= 0 {
		s := strconv.Itoa(ix)
		annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: s}
		labels[batchv1.JobCompletionIndexAnnotation] = s
		name = fmt.Sprintf("%s-%d-%07d", job.Name, ix, i)
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			GenerateName:      job.Name + "-",
			Namespace:         job.Namespace,
			UID:               types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion:   strconv.Itoa(2000 + i),
			CreationTimestamp: created,
			Labels:            labels,
			Annotations:       annotations,
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
			Finalizers:        []string{batchv1.JobTrackingFinalizer},
		},
		Spec: *job.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{
			Phase:     phase,
			StartTime: &started,
		},
	}
	p.Spec.NodeName = fmt.Sprintf("node-%03d", i%500)
	ready := corev1.ConditionFalse
	cs := corev1.ContainerStatus{Name: "main", Image: p.Spec.Containers[0].Image, ImageID: "sha256:0000", ContainerID: "containerd://" + string(p.UID)}
	switch phase {
	case corev1.PodRunning:
		ready = corev1.ConditionTrue
		cs.Ready, cs.Started = true, ptr(true)
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
	case corev1.PodSucceeded, corev1.PodFailed:
		code := int32(0)
		if phase == corev1.PodFailed {
			code = 1
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", StartedAt: started, FinishedAt: metav1.NewTime(Now.Add(-time.Second))}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: started},
		{Type: corev1.ContainersReady, Status: ready, LastTransitionTime: started},
		{Type: corev1.PodReady, Status: ready, LastTransitionTime: started},
	}
	return p
}

// Pods returns n pods of job, the i-th in phase(i), with index i for an
// Indexed Job, in a scrambled order (Shuffle): an informer lists pods in the
// order of a map, not by creation or index. They are allocated in the order
// of the slice, so that a loop over the slice walks memory forward, as it
// would over pods an informer decoded one after the other.
func Pods(job *batchv1.Job, n int, phase func(i int) corev1.PodPhase) []*corev1.Pod {
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	pods := make([]*corev1.Pod, n)
	for k, i := range Shuffle(n) {
		ix := -1
		if indexed {
			ix = i
		}
		pods[k] = Pod(job, i, ix, phase(i))
	}
	return pods
}

// Shuffle returns a permutation of 0..n-1, the same for the same n: a
// Fisher-Yates shuffle driven by a fixed-seed splitmix64 sequence.
func Shuffle(n int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	state := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for i := n - 1; i > 0; i-- {
		j := int(next() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// Running is the phase of every pod in the steady state.
func Running(int) corev1.PodPhase { return corev1.PodRunning }

// Steady is n pods running and ready, and a status that says so.
func Steady(n int, m Mode) jobsync.Snapshot {
	job := Job(n, m)
	return jobsync.Snapshot{Job: job, Pods: Pods(job, n, Running), Now: Now}
}

// Tracking is a Job whose every third pod (from the first) has just
// succeeded and still carries its finalizer; the status does not know yet.
func Tracking(n int, m Mode) jobsync.Snapshot {
	job := Job(n, m)
	pods := Pods(job, n, func(i int) corev1.PodPhase {
		if i%3 == 0 {
			return corev1.PodSucceeded
		}
		return corev1.PodRunning
	})
	return jobsync.Snapshot{Job: job, Pods: pods, Now: Now}
}

// ScaleDown is n pods running with parallelism lowered to n/10 (at least 1).
func ScaleDown(n int, m Mode) jobsync.Snapshot {
	job := Job(n, m)
	job.Spec.Parallelism = ptr(int32(max(1, n/10)))
	return jobsync.Snapshot{Job: job, Pods: Pods(job, n, Running), Now: Now}
}

// Suspend is n pods running in a Job just suspended.
func Suspend(n int, m Mode) jobsync.Snapshot {
	job := Job(n, m)
	job.Spec.Suspend = ptr(true)
	return jobsync.Snapshot{Job: job, Pods: Pods(job, n, Running), Now: Now}
}

// Create is an Indexed Job of completions and parallelism n whose even
// indexes run (n/2 pods, rounded up) and whose odd indexes have no pod.
func Create(n int, m Mode) jobsync.Snapshot {
	job := Job(n, m)
	half := (n + 1) / 2
	job.Status.Active, job.Status.Ready = int32(half), ptr(int32(half))
	pods := make([]*corev1.Pod, half)
	for k, i := range Shuffle(half) {
		pods[k] = Pod(job, i, 2*i, corev1.PodRunning)
	}
	return jobsync.Snapshot{Job: job, Pods: pods, Now: Now}
}

// Floor visits every pod once and counts phases: no algorithm that looks
// at each pod can do less.
func Floor(pods []*corev1.Pod) (active, succeeded, failed int) {
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			succeeded++
		case corev1.PodFailed:
			failed++
		default:
			if p.DeletionTimestamp == nil {
				active++
			}
		}
	}
	return
}

// SemanticFloor reads, once per pod, the fields upstream's rules oblige any
// faithful reimplementation to read on every sync, even when nothing is to
// be done: the namespace, the controller owner reference, the selector's
// label, the phase, the deletion timestamp and the Ready condition. It
// decides nothing. (An Indexed Job must also read each active pod's index
// annotation; this floor leaves that out.)
func SemanticFloor(pods []*corev1.Pod, uid types.UID) (active, ready, mine int) {
	for _, p := range pods {
		if p.Namespace == "" {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.UID == uid && p.Labels[batchv1.ControllerUidLabel] == string(uid) {
			mine++
		}
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			active++
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
	}
	return
}

func ptr[T any](v T) *T { return &v }
