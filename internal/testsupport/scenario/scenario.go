// Package scenario reads the scenario files under testdata/scenarios: a Job,
// its pods in shorthand, the clock and the controller memory, followed by
// the expected plan. The library's tests check the plans; the conformance
// module runs the same snapshots through upstream's Job controller. It is
// internal because its shorthand is a test format, not an API.
package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// WantMarker separates a scenario's input from its expected plan.
const WantMarker = "# --- expected plan: regenerate with `go test ./jobsync -run TestScenarios -update`, then read the diff ---\n"

// Scenario is the input half of a scenario file.
type Scenario struct {
	Description  string                    `json:"description"`
	Now          metav1.Time               `json:"now"`
	Options      Options                   `json:"options,omitempty"`
	Job          batchv1.Job               `json:"job"`
	Pods         []Pod                     `json:"pods,omitempty"`
	Expectations expectations.Expectations `json:"expectations,omitempty"`
	Backoff      backoff.Record            `json:"backoff,omitempty"`
	// Workloads and PodGroups are scheduling.k8s.io objects in the Job's
	// namespace (read with gates.workloadWithJob); a namespace left out is
	// the Job's. They stay raw here: their types are those of one
	// Kubernetes minor, and only the alpha module that reads them
	// (alpha/workload136) decodes them.
	Workloads []json.RawMessage `json:"workloads,omitempty"`
	PodGroups []json.RawMessage `json:"podGroups,omitempty"`
	// Gates are feature gates set otherwise than v1.36's defaults; unlike
	// Options, upstream runs with them too.
	Gates Gates `json:"gates,omitempty"`
}

// Gates are the feature gates a scenario may turn on or off.
type Gates struct {
	// WorkloadWithJob turns the alpha WorkloadWithJob gate on (upstream
	// also with GenericWorkload): the scenario is decided by
	// alpha/workload136's Reconcile, not jobsync's.
	WorkloadWithJob bool `json:"workloadWithJob,omitempty"`
}

// Options are the few jobsync.Options a scenario may change.
type Options struct {
	MaxUncountedPods          int    `json:"maxUncountedPods,omitempty"`
	MaxPodCreateDeletePerSync int    `json:"maxPodCreateDeletePerSync,omitempty"`
	ControllerName            string `json:"controllerName,omitempty"`
	TrackingFinalizer         string `json:"trackingFinalizer,omitempty"`
}

// Pod describes a pod of the Job in the few fields that matter to the
// controller; PodFor turns it into the object a kubelet would report.
type Pod struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`         // default "uid-<name>"
	Namespace   string            `json:"namespace,omitempty"`   // default: the Job's
	Phase       corev1.PodPhase   `json:"phase,omitempty"`       // default Running
	Ready       bool              `json:"ready,omitempty"`       // Ready=True since created
	Index       *int              `json:"index,omitempty"`       // completion index annotation
	IndexText   string            `json:"indexText,omitempty"`   // raw annotation value, for malformed ones
	NoFinalizer bool              `json:"noFinalizer,omitempty"` // without the tracking finalizer
	Created     *metav1.Time      `json:"created,omitempty"`     // default: the Job's creation time
	Finished    *metav1.Time      `json:"finished,omitempty"`    // container finish time (terminal pods)
	ExitCode    int32             `json:"exitCode,omitempty"`    // of the container, for Failed pods default 1
	Container   string            `json:"container,omitempty"`   // default "main"
	Deleted     *metav1.Time      `json:"deleted,omitempty"`     // deletion timestamp
	Conditions  []string          `json:"conditions,omitempty"`  // extra pod conditions, Type=True
	Restarts    int32             `json:"restarts,omitempty"`    // container restart count
	Node        string            `json:"node,omitempty"`        // default "node-1" unless Pending
	Annotations map[string]string `json:"annotations,omitempty"` // extra annotations
	Owner       string            `json:"owner,omitempty"`       // "none" for an orphan, or another UID
	// OwnerRefs, when set, are the pod's owner references, replacing what
	// Owner says: any mix of references to the Job (controller or not) and
	// to other objects.
	OwnerRefs []OwnerRef        `json:"ownerRefs,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"` // replace the Job's template labels
	// Init, when set, gives the pod an init container that ended with this
	// exit code; the main container then never started.
	Init *InitContainer `json:"init,omitempty"`
}

// OwnerRef is one owner reference in short: the Job's kind, name and UID
// unless said otherwise.
type OwnerRef struct {
	Kind       string `json:"kind,omitempty"` // default "Job"
	Name       string `json:"name,omitempty"` // default: the Job's name
	UID        string `json:"uid,omitempty"`  // default: the Job's UID
	Controller *bool  `json:"controller,omitempty"`
}

// InitContainer is an init container that terminated.
type InitContainer struct {
	Name     string `json:"name"`
	ExitCode int32  `json:"exitCode"`
}

// Parse splits a scenario file at WantMarker and reads its input half
// strictly. want is the text after the marker, empty when there is none.
func Parse(raw []byte) (sc Scenario, input, want []byte, err error) {
	input, want, _ = bytes.Cut(raw, []byte(WantMarker))
	if err := yaml.UnmarshalStrict(input, &sc); err != nil {
		return Scenario{}, nil, nil, fmt.Errorf("reading scenario: %w", err)
	}
	return sc, input, want, nil
}

// JobsyncOptions returns the options the scenario runs Reconcile with.
func (sc Scenario) JobsyncOptions() jobsync.Options {
	return jobsync.Options{
		MaxUncountedPods:          sc.Options.MaxUncountedPods,
		MaxPodCreateDeletePerSync: sc.Options.MaxPodCreateDeletePerSync,
		ControllerName:            sc.Options.ControllerName,
		TrackingFinalizer:         sc.Options.TrackingFinalizer,
	}
}

// Snapshot builds the snapshot the scenario describes.
func (sc Scenario) Snapshot() jobsync.Snapshot {
	job := Job(sc.Job)
	finalizer := sc.Options.TrackingFinalizer
	if finalizer == "" {
		finalizer = batchv1.JobTrackingFinalizer
	}
	pods := make([]*corev1.Pod, 0, len(sc.Pods))
	for _, ps := range sc.Pods {
		pods = append(pods, PodFor(job, ps, finalizer))
	}
	return jobsync.Snapshot{Job: job, Pods: pods, Now: sc.Now.Time, Expectations: sc.Expectations, Backoff: sc.Backoff}
}

// Job fills in what the API server would and what scenario files
// leave out to stay short: names, UID, selector and labels, a template, and
// the defaulted counts.
func Job(in batchv1.Job) *batchv1.Job {
	job := in.DeepCopy()
	if job.Name == "" {
		job.Name = "job"
	}
	if job.Namespace == "" {
		job.Namespace = "default"
	}
	if job.UID == "" {
		job.UID = "job-uid"
	}
	if job.ResourceVersion == "" {
		job.ResourceVersion = "1"
	}
	if job.CreationTimestamp.IsZero() {
		job.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	labels := map[string]string{batchv1.ControllerUidLabel: string(job.UID), batchv1.JobNameLabel: job.Name}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(job.UID)}}
	}
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = labels
	}
	if len(job.Spec.Template.Spec.Containers) == 0 {
		job.Spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	}
	if job.Spec.Template.Spec.RestartPolicy == "" {
		job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if job.Spec.Parallelism == nil {
		job.Spec.Parallelism = ptr(int32(1))
	}
	if job.Spec.BackoffLimit == nil {
		if job.Spec.BackoffLimitPerIndex != nil {
			job.Spec.BackoffLimit = ptr(int32(2147483647))
		} else {
			job.Spec.BackoffLimit = ptr(int32(6))
		}
	}
	if job.Spec.CompletionMode == nil {
		job.Spec.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if job.Spec.Suspend == nil {
		job.Spec.Suspend = ptr(false)
	}
	if job.Spec.PodReplacementPolicy == nil {
		if job.Spec.PodFailurePolicy != nil {
			job.Spec.PodReplacementPolicy = ptr(batchv1.Failed)
		} else {
			job.Spec.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
		}
	}
	return job
}

// PodFor builds the pod that a kubelet would report for the shorthand ps
// of a pod of job, carrying the tracking finalizer unless ps says not to.
func PodFor(job *batchv1.Job, ps Pod, finalizer string) *corev1.Pod {
	created := job.CreationTimestamp
	if ps.Created != nil {
		created = *ps.Created
	}
	uid := ps.UID
	if uid == "" {
		uid = "uid-" + ps.Name
	}
	phase := ps.Phase
	if phase == "" {
		phase = corev1.PodRunning
	}
	namespace := job.Namespace
	if ps.Namespace != "" {
		namespace = ps.Namespace
	}
	labels := map[string]string{}
	for k, v := range job.Spec.Template.Labels {
		labels[k] = v
	}
	if ps.Labels != nil {
		labels = ps.Labels
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              ps.Name,
			Namespace:         namespace,
			UID:               types.UID(uid),
			CreationTimestamp: created,
			Labels:            labels,
			Annotations:       map[string]string{},
			DeletionTimestamp: ps.Deleted,
		},
		Spec:   *job.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: phase},
	}
	switch ps.Owner {
	case "":
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}
	case "none":
	default:
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "other", UID: types.UID(ps.Owner), Controller: ptr(true)}}
	}
	if ps.OwnerRefs != nil {
		p.OwnerReferences = nil
		for _, r := range ps.OwnerRefs {
			ref := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: r.Controller}
			if r.Kind != "" {
				ref.Kind = r.Kind
				if r.Kind != "Job" && r.Kind != "CronJob" {
					ref.APIVersion = "v1"
				}
			}
			if r.Name != "" {
				ref.Name = r.Name
			}
			if r.UID != "" {
				ref.UID = types.UID(r.UID)
			}
			p.OwnerReferences = append(p.OwnerReferences, ref)
		}
	}
	if !ps.NoFinalizer {
		p.Finalizers = []string{finalizer}
	}
	for k, v := range ps.Annotations {
		p.Annotations[k] = v
	}
	if ps.Index != nil {
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = fmt.Sprint(*ps.Index)
		p.Labels[batchv1.JobCompletionIndexAnnotation] = fmt.Sprint(*ps.Index)
	}
	if ps.IndexText != "" {
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = ps.IndexText
	}
	if ps.Deleted != nil {
		p.DeletionGracePeriodSeconds = ptr(int64(30))
	}
	if phase != corev1.PodPending {
		p.Spec.NodeName = "node-1"
		if ps.Node != "" {
			p.Spec.NodeName = ps.Node
		}
	}
	container := ps.Container
	if container == "" {
		container = "main"
	}
	cs := corev1.ContainerStatus{Name: container, RestartCount: ps.Restarts}
	switch phase {
	case corev1.PodRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: created}
	case corev1.PodSucceeded, corev1.PodFailed:
		exit := ps.ExitCode
		if phase == corev1.PodFailed && exit == 0 {
			exit = 1
		}
		finished := created
		if ps.Finished != nil {
			finished = *ps.Finished
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exit, FinishedAt: finished}
	}
	if ps.Init != nil {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: ps.Init.Name, Image: "busybox"})
		finished := created
		if ps.Finished != nil {
			finished = *ps.Finished
		}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: ps.Init.Name, State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: ps.Init.ExitCode, FinishedAt: finished},
		}}}
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
	}
	if phase != corev1.PodPending {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	}
	readyStatus := corev1.ConditionFalse
	if ps.Ready {
		readyStatus = corev1.ConditionTrue
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: readyStatus, LastTransitionTime: created})
	for _, c := range ps.Conditions {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodConditionType(c), Status: corev1.ConditionTrue, LastTransitionTime: created})
	}
	return p
}

func ptr[T any](v T) *T { return &v }
