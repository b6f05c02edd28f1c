package jobsync_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

var update = flag.Bool("update", false, "rewrite the expected plans of the scenario files")

// wantMarker separates a scenario's input from its expected plan.
const wantMarker = "# --- expected plan: regenerate with `go test ./jobsync -run TestScenarios -update`, then read the diff ---\n"

// scenario is the input half of a file under testdata/scenarios.
type scenario struct {
	Description  string                    `json:"description"`
	Now          metav1.Time               `json:"now"`
	Options      scenarioOptions           `json:"options,omitempty"`
	Job          batchv1.Job               `json:"job"`
	Pods         []podShorthand            `json:"pods,omitempty"`
	Expectations expectations.Expectations `json:"expectations,omitempty"`
	Backoff      backoff.Record            `json:"backoff,omitempty"`
}

type scenarioOptions struct {
	MaxUncountedPods          int    `json:"maxUncountedPods,omitempty"`
	MaxPodCreateDeletePerSync int    `json:"maxPodCreateDeletePerSync,omitempty"`
	ControllerName            string `json:"controllerName,omitempty"`
	TrackingFinalizer         string `json:"trackingFinalizer,omitempty"`
}

// podShorthand describes a pod of the Job in the few fields that matter to
// the controller; podFor turns it into the object a kubelet would report.
type podShorthand struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`         // default "uid-<name>"
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
	Labels      map[string]string `json:"labels,omitempty"`      // replace the Job's template labels
}

// digest is the expected plan, in a form a person can check line by line.
type digest struct {
	Skipped           string             `json:"skipped,omitempty"`
	Releases          []string           `json:"releases,omitempty"`
	Adoptions         []string           `json:"adoptions,omitempty"`
	Deletions         []string           `json:"deletions,omitempty"`
	Creations         []string           `json:"creations,omitempty"`
	InterimStatus     *batchv1.JobStatus `json:"interimStatus,omitempty"`
	FinalizerRemovals []string           `json:"finalizerRemovals,omitempty"`
	Status            *batchv1.JobStatus `json:"status,omitempty"`
	RequeueAfter      string             `json:"requeueAfter,omitempty"`
	Events            []string           `json:"events,omitempty"`
	Expectations      expectationsDigest `json:"expectations"`
	Backoff           backoff.Record     `json:"backoff"`
	Notes             []string           `json:"notes,omitempty"`
}

type expectationsDigest struct {
	Creations         int64       `json:"creations,omitempty"`
	Deletions         int64       `json:"deletions,omitempty"`
	SetAt             string      `json:"setAt,omitempty"`
	FinalizerRemovals []types.UID `json:"finalizerRemovals,omitempty"`
	JobFinished       bool        `json:"jobFinished,omitempty"`
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, wantText, _ := bytes.Cut(raw, []byte(wantMarker))
			var sc scenario
			if err := yaml.UnmarshalStrict(input, &sc); err != nil {
				t.Fatalf("reading scenario: %v", err)
			}
			snap := sc.snapshot()
			plan, err := jobsync.Reconcile(snap, sc.options())
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			got := digestOf(plan)

			// The same snapshot with the pods in another order decides the same.
			shuffled := snap
			shuffled.Pods = append([]*corev1.Pod(nil), snap.Pods...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled.Pods), func(i, j int) {
				shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
			})
			again, err := jobsync.Reconcile(shuffled, sc.options())
			if err != nil {
				t.Fatalf("Reconcile with shuffled pods: %v", err)
			}
			if d := cmp.Diff(plan, again); d != "" {
				t.Errorf("the order of pods changed the plan (-first +shuffled):\n%s", d)
			}

			if *update {
				out, err := yaml.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				buf.Write(bytes.TrimRight(input, "\n"))
				buf.WriteString("\n" + wantMarker)
				buf.Write(wantHeader(out))
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(wantText) == 0 {
				t.Fatalf("no expected plan; run with -update and check it")
			}
			var want digest
			if err := yaml.UnmarshalStrict(unwrapWant(wantText), &want); err != nil {
				t.Fatalf("reading expected plan: %v", err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("plan differs from %s (-want +got):\n%s", file, d)
			}
		})
	}
}

// wantHeader nests the marshalled digest under a "want:" key, so that the
// file reads as one YAML document.
func wantHeader(b []byte) []byte {
	var out bytes.Buffer
	out.WriteString("want:\n")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		out.WriteString("  " + line)
	}
	return out.Bytes()
}

func unwrapWant(b []byte) []byte {
	var wrapper struct {
		Want digest `json:"want"`
	}
	if err := yaml.UnmarshalStrict(b, &wrapper); err != nil {
		return b
	}
	out, _ := yaml.Marshal(wrapper.Want)
	return out
}

func (sc *scenario) options() jobsync.Options {
	return jobsync.Options{
		MaxUncountedPods:          sc.Options.MaxUncountedPods,
		MaxPodCreateDeletePerSync: sc.Options.MaxPodCreateDeletePerSync,
		ControllerName:            sc.Options.ControllerName,
		TrackingFinalizer:         sc.Options.TrackingFinalizer,
	}
}

func (sc *scenario) snapshot() jobsync.Snapshot {
	job := scenarioJob(sc.Job)
	finalizer := sc.Options.TrackingFinalizer
	if finalizer == "" {
		finalizer = batchv1.JobTrackingFinalizer
	}
	pods := make([]*corev1.Pod, 0, len(sc.Pods))
	for _, ps := range sc.Pods {
		pods = append(pods, podFor(job, ps, finalizer))
	}
	return jobsync.Snapshot{Job: job, Pods: pods, Now: sc.Now.Time, Expectations: sc.Expectations, Backoff: sc.Backoff}
}

// scenarioJob fills in what the API server would and what scenario files
// leave out to stay short: names, UID, selector and labels, a template, and
// the defaulted counts.
func scenarioJob(in batchv1.Job) *batchv1.Job {
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

func podFor(job *batchv1.Job, ps podShorthand, finalizer string) *corev1.Pod {
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
			Namespace:         job.Namespace,
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

func digestOf(p jobsync.Plan) digest {
	d := digest{
		Skipped:       p.Skipped,
		InterimStatus: p.InterimStatus,
		Status:        p.Status,
		Backoff:       p.Backoff,
		Notes:         p.Notes,
		Expectations: expectationsDigest{
			Creations:         p.Expectations.Creations,
			Deletions:         p.Expectations.Deletions,
			FinalizerRemovals: p.Expectations.FinalizerRemovals,
			JobFinished:       p.Expectations.JobFinished,
		},
	}
	if !p.Expectations.SetAt.IsZero() {
		d.Expectations.SetAt = p.Expectations.SetAt.UTC().Format(time.RFC3339)
	}
	for _, c := range p.Releases {
		d.Releases = append(d.Releases, c.Pod.Name+": "+c.Reason)
	}
	for _, c := range p.Adoptions {
		d.Adoptions = append(d.Adoptions, c.Pod.Name+": "+c.Reason)
	}
	for _, del := range p.Deletions {
		var flags []string
		if del.RemoveFinalizer {
			flags = append(flags, "finalizer removed first")
		}
		if del.Ready {
			flags = append(flags, "ready")
		}
		s := del.Pod.Name
		if len(flags) > 0 {
			s += " (" + strings.Join(flags, ", ") + ")"
		}
		d.Deletions = append(d.Deletions, s+": "+del.Reason)
	}
	for _, c := range p.Creations {
		s := c.Pod.GenerateName
		if v, ok := c.Pod.Annotations[batchv1.JobIndexFailureCountAnnotation]; ok {
			s += " failure-count=" + v
		}
		if v, ok := c.Pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]; ok {
			s += " ignored-failure-count=" + v
		}
		d.Creations = append(d.Creations, s+": "+c.Reason)
	}
	for _, r := range p.FinalizerRemovals {
		d.FinalizerRemovals = append(d.FinalizerRemovals, r.Pod.Name+": "+r.Reason)
	}
	if p.RequeueAfter > 0 {
		d.RequeueAfter = p.RequeueAfter.String()
	}
	for _, e := range p.Events {
		d.Events = append(d.Events, e.Type+" "+e.Reason+": "+e.Message)
	}
	return d
}

func ptr[T any](v T) *T { return &v }
