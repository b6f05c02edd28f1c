package customresource

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/controller/kubeletplayer"
	example "github.com/jobsync/jobsync/examples/customresource"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// twinCase is one life of a Job, lived by a batch/v1 Job under upstream's
// controller and by a TrainingRun under the example's.
type twinCase struct {
	name   string
	spec   func(s *batchv1.JobSpec)
	script jobsynctest.Script
	// steps are merge patches of the spec (or "delete") at times from
	// creation.
	steps []twinStep
	// want is the condition the twins end with ("" when deleted) and
	// its reason.
	want, reason string
}

type twinStep struct {
	at    time.Duration
	patch string
}

func twinCases() []twinCase {
	run := func(d time.Duration) *jobsynctest.Behavior { return &jobsynctest.Behavior{RunTime: d} }
	return []twinCase{
		{
			name:   "nonindexed",
			spec:   func(s *batchv1.JobSpec) { s.Completions, s.Parallelism = ptr(int32(3)), ptr(int32(2)) },
			script: jobsynctest.Script{Default: run(time.Second)},
			want:   "Complete", reason: "CompletionsReached",
		},
		{
			name: "indexed",
			spec: func(s *batchv1.JobSpec) {
				s.Completions, s.Parallelism = ptr(int32(3)), ptr(int32(3))
				s.CompletionMode = ptr(batchv1.IndexedCompletion)
			},
			script: jobsynctest.Script{Default: run(time.Second)},
			want:   "Complete", reason: "CompletionsReached",
		},
		{
			name:   "backofflimit",
			spec:   func(s *batchv1.JobSpec) { s.BackoffLimit = ptr(int32(2)) },
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 500 * time.Millisecond, ExitCode: 1}},
			want:   "Failed", reason: "BackoffLimitExceeded",
		},
		{
			// The first pod is disrupted (ignored and replaced), the second
			// exits 42 (the TrainingRun fails).
			name: "podfailurepolicy",
			spec: func(s *batchv1.JobSpec) {
				s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
					{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
						ContainerName: ptr("main"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42},
					}},
					{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
						{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
					}},
				}}
			},
			script: jobsynctest.Script{Pods: []jobsynctest.PodRule{
				{Attempt: ptr(0), Behavior: jobsynctest.Behavior{RunTime: time.Second, Disruption: true}},
				{Attempt: ptr(1), Behavior: jobsynctest.Behavior{RunTime: time.Second, ExitCode: 42}},
			}},
			want: "Failed", reason: "PodFailurePolicy",
		},
		{
			name:   "suspend-resume",
			spec:   func(s *batchv1.JobSpec) { s.Completions, s.Parallelism = ptr(int32(2)), ptr(int32(2)) },
			script: jobsynctest.Script{Default: run(3 * time.Second)},
			steps: []twinStep{
				{1500 * time.Millisecond, `{"spec":{"suspend":true}}`},
				{3 * time.Second, `{"spec":{"suspend":false}}`},
			},
			want: "Complete", reason: "CompletionsReached",
		},
		{
			// Deleted while its pods run: no garbage collector runs here,
			// so the pods stay, and each controller must take its tracking
			// finalizer off them.
			name:   "deleted",
			spec:   func(s *batchv1.JobSpec) { s.Completions, s.Parallelism = ptr(int32(2)), ptr(int32(2)) },
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}},
			steps:  []twinStep{{1500 * time.Millisecond, "delete"}},
		},
	}
}

// TestTwins runs each case as a batch/v1 Job under upstream's controller
// and as a TrainingRun under the example's, on one API server, and
// compares their final statuses.
func TestTwins(t *testing.T) {
	e := newEnv(t)
	jobPlayer := e.player(t, kubeletplayer.Options{})
	runPlayer := e.player(t, kubeletplayer.Options{Owner: example.Kind})
	for _, tc := range twinCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := baseSpecOf(tc)
			job := e.createJob(t, tc.name+"-job", spec)
			run := e.createRun(t, tc.name+"-tr", spec)
			jobPlayer.Play(job, tc.script)
			runPlayer.Play(run, tc.script)
			twins := []twin{{kind: "Job", name: job.Name, uid: job.UID, finalizer: batchv1.JobTrackingFinalizer},
				{kind: example.Kind.Kind, name: run.Name, uid: run.UID, finalizer: example.Finalizer}}
			e.runSteps(t, tc.steps, twins)
			e.await(t, tc, twins)
			e.compare(t, tc, twins)
		})
	}
}

// baseSpecOf is the case's spec.
func baseSpecOf(tc twinCase) batchv1.JobSpec {
	spec := baseSpec()
	tc.spec(&spec)
	return spec
}

func (e *env) createJob(t *testing.T, name string, spec batchv1.JobSpec) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
	created, err := e.kube.BatchV1().Jobs(ns).Create(e.ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	return created
}

// createRun creates a TrainingRun whose spec is spec, as a user's manifest
// would give it: the fields set, nothing defaulted. It returns the
// TrainingRun's name and UID in a Job, which is what the player needs.
func (e *env) createRun(t *testing.T, name string, spec batchv1.JobSpec) *batchv1.Job {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": example.Kind.GroupVersion().String(), "kind": example.Kind.Kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     toMap(t, spec),
	}}
	created, err := e.dyn.Resource(example.Resource).Namespace(ns).Create(e.ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating TrainingRun %s: %v", name, err)
	}
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: created.GetName(), Namespace: ns, UID: created.GetUID()}}
}

// twin is one of a case's two owners.
type twin struct {
	kind, name string
	uid        types.UID
	finalizer  string
}

// patch sends a merge patch to the twin, or deletes it (background
// propagation) when patch is "delete".
func (e *env) patch(tw twin, patch string) error {
	bg := metav1.DeletePropagationBackground
	switch {
	case tw.kind == "Job" && patch == "delete":
		return e.kube.BatchV1().Jobs(ns).Delete(e.ctx, tw.name, metav1.DeleteOptions{PropagationPolicy: &bg})
	case tw.kind == "Job":
		_, err := e.kube.BatchV1().Jobs(ns).Patch(e.ctx, tw.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	case patch == "delete":
		return e.dyn.Resource(example.Resource).Namespace(ns).Delete(e.ctx, tw.name, metav1.DeleteOptions{PropagationPolicy: &bg})
	default:
		_, err := e.dyn.Resource(example.Resource).Namespace(ns).Patch(e.ctx, tw.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}
}

// runSteps sends the case's steps to both twins, each at its time from
// the twins' creation.
func (e *env) runSteps(t *testing.T, steps []twinStep, twins []twin) {
	t.Helper()
	start := time.Now()
	for _, st := range steps {
		time.Sleep(time.Until(start.Add(st.at)))
		for _, tw := range twins {
			if err := e.patch(tw, st.patch); err != nil {
				t.Errorf("%s %s: %s at %v: %v", tw.kind, tw.name, st.patch, st.at, err)
			}
		}
	}
}

// status reads a twin's status; gone is true when it no longer exists.
func (e *env) status(tw twin) (st batchv1.JobStatus, gone bool, err error) {
	if tw.kind == "Job" {
		job, err := e.kube.BatchV1().Jobs(ns).Get(e.ctx, tw.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return st, true, nil
		}
		if err != nil {
			return st, false, err
		}
		return job.Status, false, nil
	}
	u, err := e.dyn.Resource(example.Resource).Namespace(ns).Get(e.ctx, tw.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return st, true, nil
	}
	if err != nil {
		return st, false, err
	}
	// Read as a user of the resource would: the stored .status decoded
	// into a JobStatus, without the controller module's conversion.
	if m, ok := u.Object["status"].(map[string]any); ok {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st)
	}
	return st, false, err
}

// timeout bounds each wait: generous, since the machine is shared.
const timeout = 2 * time.Minute

// await waits until both twins have ended (finished, or gone when the
// case deletes them) and no pod of either holds its tracking finalizer.
func (e *env) await(t *testing.T, tc twinCase, twins []twin) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for _, tw := range twins {
		for {
			st, gone, err := e.status(tw)
			if err == nil && (gone && tc.want == "" || !gone && finished(st) != "") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s has not ended within %v: gone %v, status %+v, error %v", tw.kind, tw.name, timeout, gone, st, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for {
			pods, err := e.podsOf(tw)
			held := 0
			for _, p := range pods {
				for _, f := range p.Finalizers {
					if f == tw.finalizer {
						held++
					}
				}
			}
			if err == nil && held == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s: %d pods still hold %s after %v (error %v)", tw.kind, tw.name, held, tw.finalizer, timeout, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func finished(st batchv1.JobStatus) string {
	for _, c := range st.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return string(c.Type)
		}
	}
	return ""
}

// podsOf lists the pods the twin controls.
func (e *env) podsOf(tw twin) ([]corev1.Pod, error) {
	list, err := e.kube.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == tw.uid {
			out = append(out, p)
		}
	}
	return out, nil
}

// compare checks the case's outcome on the Job, then that the TrainingRun
// ended with the same status and the same pods.
func (e *env) compare(t *testing.T, tc twinCase, twins []twin) {
	t.Helper()
	var statuses [2]batchv1.JobStatus
	var pods [2][]corev1.Pod
	for i, tw := range twins {
		st, gone, err := e.status(tw)
		if err != nil {
			t.Fatalf("reading %s %s: %v", tw.kind, tw.name, err)
		}
		if gone != (tc.want == "") {
			t.Errorf("%s %s: gone %v, want %v", tw.kind, tw.name, gone, tc.want == "")
		}
		statuses[i] = normalize(st, tw.name)
		if pods[i], err = e.podsOf(tw); err != nil {
			t.Fatal(err)
		}
	}
	if tc.want != "" {
		if got := finished(statuses[0]); got != tc.want || !hasReason(statuses[0], tc.reason) {
			t.Errorf("Job %s ended %q, want %q with reason %s: %+v", twins[0].name, got, tc.want, tc.reason, statuses[0])
		}
	}
	if diff := cmp.Diff(statuses[0], statuses[1], cmpopts.SortSlices(func(a, b batchv1.JobCondition) bool { return a.Type < b.Type })); diff != "" {
		t.Errorf("TrainingRun %s ended otherwise than its twin Job (-Job +TrainingRun):\n%s", twins[1].name, diff)
	}
	if tc.want == "" && len(pods[1]) != int(*baseSpecOf(tc).Parallelism) {
		t.Errorf("the TrainingRun left %d pods, want its %d running ones (no garbage collector runs)", len(pods[1]), *baseSpecOf(tc).Parallelism)
	}
	if len(pods[0]) != len(pods[1]) {
		t.Errorf("the Job left %d pods, the TrainingRun %d", len(pods[0]), len(pods[1]))
	}
	for _, p := range pods[1] {
		ref := metav1.GetControllerOf(&p)
		if ref.APIVersion != example.Kind.GroupVersion().String() || ref.Kind != example.Kind.Kind || ref.Name != twins[1].name {
			t.Errorf("pod %s: controller reference %s %s %s, want the TrainingRun", p.Name, ref.APIVersion, ref.Kind, ref.Name)
		}
	}
	t.Logf("%s: both ended with %s", tc.name, describe(statuses[0]))
}

func hasReason(st batchv1.JobStatus, reason string) bool {
	for _, c := range st.Conditions {
		if c.Reason == reason && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// normalize blanks what differs between twins by nature: times, and the
// owner's and its pods' names in condition messages.
func normalize(st batchv1.JobStatus, owner string) batchv1.JobStatus {
	st = *st.DeepCopy()
	// A time's presence is compared, not its value.
	for _, tp := range []**metav1.Time{&st.StartTime, &st.CompletionTime} {
		if *tp != nil {
			*tp = &metav1.Time{}
		}
	}
	podName := regexp.MustCompile(regexp.QuoteMeta(owner) + `-[a-z0-9]{5}\b`)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		c.LastProbeTime, c.LastTransitionTime = metav1.Time{}, metav1.Time{}
		c.Message = podName.ReplaceAllString(c.Message, "<owner>-<pod>")
	}
	return st
}

func describe(st batchv1.JobStatus) string {
	var conds []string
	for _, c := range st.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return fmt.Sprintf("succeeded %d, failed %d, completed %q, conditions %v", st.Succeeded, st.Failed, st.CompletedIndexes, conds)
}
