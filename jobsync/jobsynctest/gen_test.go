package jobsynctest_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// genJob draws a Job of any completion mode and policy that the API server
// accepts: NonIndexed with completions, a work queue (no completions), or
// Indexed; restartPolicy Never or OnFailure; backoffLimit;
// backoffLimitPerIndex and maxFailedIndexes; a pod failure policy over the
// exit codes and conditions the pod model produces; a success policy;
// podReplacementPolicy; activeDeadlineSeconds; and suspend.
func genJob(t *rapid.T) *batchv1.Job {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: "1c0ffee0-0000-4000-8000-000000000001"}}
	spec := &job.Spec
	spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	if rapid.Bool().Draw(t, "sidecarContainer") {
		spec.Template.Spec.Containers = append(spec.Template.Spec.Containers, corev1.Container{Name: "helper", Image: "busybox"})
	}
	spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(rapid.SampledFrom([]int{0, 5, 30}).Draw(t, "grace")))
	spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever

	mode := rapid.SampledFrom([]string{"NonIndexed", "WorkQueue", "Indexed"}).Draw(t, "mode")
	spec.Parallelism = ptr(int32(rapid.IntRange(1, 4).Draw(t, "parallelism")))
	switch mode {
	case "NonIndexed":
		spec.Completions = ptr(int32(rapid.IntRange(1, 6).Draw(t, "completions")))
	case "Indexed":
		spec.Completions = ptr(int32(rapid.IntRange(1, 6).Draw(t, "completions")))
		spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	}
	indexed := mode == "Indexed"
	if rapid.IntRange(0, 4).Draw(t, "setBackoffLimit") > 0 {
		spec.BackoffLimit = ptr(int32(rapid.IntRange(0, 6).Draw(t, "backoffLimit")))
	}
	perIndex := false
	if indexed && rapid.IntRange(0, 2).Draw(t, "withBackoffLimitPerIndex") == 0 {
		perIndex = true
		spec.BackoffLimitPerIndex = ptr(int32(rapid.IntRange(0, 2).Draw(t, "backoffLimitPerIndex")))
		if rapid.Bool().Draw(t, "withMaxFailedIndexes") {
			spec.MaxFailedIndexes = ptr(int32(rapid.IntRange(0, int(*spec.Completions)).Draw(t, "maxFailedIndexes")))
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "withPodFailurePolicy") == 0 {
		spec.PodFailurePolicy = genPodFailurePolicy(t, perIndex)
	} else if !perIndex && rapid.IntRange(0, 5).Draw(t, "onFailure") == 0 {
		// Not with backoffLimitPerIndex: its backoffLimit is unbounded, and
		// a container that keeps failing under OnFailure restarts forever.
		spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}
	if spec.PodFailurePolicy == nil && rapid.Bool().Draw(t, "setReplacementPolicy") {
		spec.PodReplacementPolicy = ptr(rapid.SampledFrom([]batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}).Draw(t, "podReplacementPolicy"))
	}
	if indexed && rapid.IntRange(0, 3).Draw(t, "withSuccessPolicy") == 0 {
		spec.SuccessPolicy = genSuccessPolicy(t, int(*spec.Completions))
	}
	if rapid.IntRange(0, 3).Draw(t, "withDeadline") == 0 {
		spec.ActiveDeadlineSeconds = ptr(int64(rapid.IntRange(20, 600).Draw(t, "activeDeadlineSeconds")))
	}
	if rapid.IntRange(0, 7).Draw(t, "startSuspended") == 0 {
		spec.Suspend = ptr(true)
	}
	return job
}

func genPodFailurePolicy(t *rapid.T, perIndex bool) *batchv1.PodFailurePolicy {
	actions := []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionCount}
	if perIndex {
		actions = append(actions, batchv1.PodFailurePolicyActionFailIndex)
	}
	n := rapid.IntRange(1, 3).Draw(t, "rules")
	pol := &batchv1.PodFailurePolicy{}
	for range n {
		r := batchv1.PodFailurePolicyRule{Action: rapid.SampledFrom(actions).Draw(t, "action")}
		if rapid.IntRange(0, 2).Draw(t, "onConditions") == 0 {
			r.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
		} else {
			codes := rapid.SliceOfNDistinct(rapid.SampledFrom([]int32{1, 2, 3, 42, 137, 143}), 1, 3, rapid.ID[int32]).Draw(t, "exitCodes")
			sortInt32(codes)
			op := batchv1.PodFailurePolicyOnExitCodesOpIn
			if rapid.IntRange(0, 3).Draw(t, "notIn") == 0 {
				op = batchv1.PodFailurePolicyOnExitCodesOpNotIn
			}
			r.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}
			if rapid.Bool().Draw(t, "containerName") {
				r.OnExitCodes.ContainerName = ptr("main")
			}
		}
		pol.Rules = append(pol.Rules, r)
	}
	return pol
}

func genSuccessPolicy(t *rapid.T, completions int) *batchv1.SuccessPolicy {
	r := batchv1.SuccessPolicyRule{}
	last := rapid.IntRange(0, completions-1).Draw(t, "successLast")
	withIndexes := rapid.Bool().Draw(t, "successIndexes")
	if withIndexes {
		s := fmt.Sprint(last)
		if last > 0 && rapid.Bool().Draw(t, "successRange") {
			s = fmt.Sprintf("0-%d", last)
		}
		r.SucceededIndexes = &s
	}
	if !withIndexes || rapid.Bool().Draw(t, "successCount") {
		limit := completions
		if withIndexes {
			limit = 1
			if s := *r.SucceededIndexes; len(s) > 1 {
				limit = last + 1
			}
		}
		r.SucceededCount = ptr(int32(rapid.IntRange(1, limit).Draw(t, "succeededCount")))
	}
	return &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{r}}
}

// scaleLow is the least completions an elastic scale may set: the API
// server wants maxFailedIndexes at most completions.
func scaleLow(job *batchv1.Job) int {
	low := 1
	if m := job.Spec.MaxFailedIndexes; m != nil {
		low = max(low, int(*m))
	}
	return low
}

func sortInt32(v []int32) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// faultKinds selects the faults a property draws.
type faultKinds struct {
	apiErrors, refused, crashes, staleViews, skewedViews, podDeletions, jobChanges bool
}

// genFaults draws fault probabilities and a schedule of changes to the
// Job. A suspended Job is always resumed (or deleted) later, so that every
// lifecycle can end.
func genFaults(t *rapid.T, job *batchv1.Job, kinds faultKinds) jobsynctest.Faults {
	var f jobsynctest.Faults
	if kinds.apiErrors {
		f.APIError = rapid.SampledFrom([]float64{0.02, 0.1, 0.3}).Draw(t, "apiError")
	}
	if kinds.refused {
		f.RefusedCreation = rapid.SampledFrom([]float64{0.1, 0.3, 0.6}).Draw(t, "refusedCreation")
	}
	if kinds.crashes {
		f.Crash = rapid.SampledFrom([]float64{0.02, 0.1, 0.3}).Draw(t, "crash")
	}
	if kinds.staleViews {
		f.StaleView = rapid.SampledFrom([]float64{0.05, 0.2, 0.5}).Draw(t, "staleView")
		f.MaxLag = time.Duration(rapid.IntRange(1, 90).Draw(t, "maxLagSec")) * time.Second
	}
	if kinds.skewedViews {
		f.SkewedView = rapid.SampledFrom([]float64{0.05, 0.2, 0.5}).Draw(t, "skewedView")
		f.MaxLag = time.Duration(rapid.IntRange(1, 90).Draw(t, "maxLagSec")) * time.Second
	}
	if kinds.podDeletions {
		f.PodDeletion = rapid.SampledFrom([]float64{0.05, 0.2}).Draw(t, "podDeletion")
	}
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	at := time.Duration(0)
	if kinds.jobChanges {
		indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
		elastic := indexed && job.Spec.SuccessPolicy == nil
		n := rapid.IntRange(0, 4).Draw(t, "jobChanges")
		// Once an elastic Job is scaled, its users change completions and
		// parallelism together: changing parallelism alone after a
		// scale-down the controller has not yet written makes the API
		// server refuse the lowered succeeded count for good (see
		// README.md), as it would refuse upstream's.
		scaled := false
		for range n {
			at += time.Duration(rapid.IntRange(1, 120).Draw(t, "changeAfterSec")) * time.Second
			kinds := []string{"suspend", "resume", "parallelism", "delete"}
			if elastic {
				kinds = append(kinds, "scale")
			}
			ch := jobsynctest.JobChange{At: at}
			switch rapid.SampledFrom(kinds).Draw(t, "change") {
			case "suspend":
				ch.Suspend = ptr(true)
				suspended = true
			case "resume":
				ch.Suspend = ptr(false)
				suspended = false
			case "parallelism":
				if scaled {
					ch.Scale = ptr(int32(rapid.IntRange(scaleLow(job), 6).Draw(t, "newScale")))
				} else {
					ch.Parallelism = ptr(int32(rapid.IntRange(0, 5).Draw(t, "newParallelism")))
				}
			case "scale":
				ch.Scale = ptr(int32(rapid.IntRange(scaleLow(job), 6).Draw(t, "newScale")))
				scaled = true
			case "delete":
				ch.Delete = true
			}
			f.JobChanges = append(f.JobChanges, ch)
		}
		// A Job left with parallelism 0 never ends: give it some back.
		if len(f.JobChanges) > 0 {
			at += time.Duration(rapid.IntRange(1, 120).Draw(t, "lastChangeAfterSec")) * time.Second
			last := jobsynctest.JobChange{At: at, Parallelism: ptr(int32(rapid.IntRange(1, 4).Draw(t, "finalParallelism")))}
			if scaled {
				last.Scale, last.Parallelism = ptr(max(int32(scaleLow(job)), *last.Parallelism)), nil
			}
			f.JobChanges = append(f.JobChanges, last)
		}
	}
	if suspended {
		at += time.Duration(rapid.IntRange(1, 120).Draw(t, "resumeAfterSec")) * time.Second
		f.JobChanges = append(f.JobChanges, jobsynctest.JobChange{At: at, Suspend: ptr(false)})
	}
	return f
}
