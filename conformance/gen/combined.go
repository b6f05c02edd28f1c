package gen

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/backoff"
)

// combined draws every feature of the Job API at once (as far as the API
// server accepts the combination) and a population of pods in any state:
// the part of the mixed family that looks for interactions between
// features no other family puts together.
func combined(g *G) {
	for attempt := 0; ; attempt++ {
		s := g.combinedShape(attempt)
		if err := g.tryNewJob(s); err == nil {
			break
		} else if attempt > 20 {
			panic(fmt.Sprintf("combined: no valid Job after %d attempts: %v", attempt, err))
		}
	}
	job := g.job
	h := g.begin()
	h.acctWeight = [4]int{g.between(0, 5), g.between(0, 5), g.between(0, 3), g.between(1, 5)}
	if g.chance(0.1) {
		h.memory = memoryLost
	}
	indexed := g.indexed()
	c := int(ptr.Deref(job.Spec.Completions, 0))
	ix := func() int {
		if !indexed || c == 0 {
			return -1
		}
		if g.chance(0.05) {
			return c + g.between(0, 2)
		}
		return g.between(0, c-1)
	}
	perIndex := job.Spec.BackoffLimitPerIndex != nil
	n := g.between(0, 12)
	for range n {
		ph := pick(g, unscheduled, pending, running, ready, ready, succeeded, succeeded, failed, failed, unknown)
		var p *podPlan
		if g.chance(0.12) {
			p = g.terminating(ix(), ph)
		} else {
			p = g.pod(ix(), ph)
		}
		if ph == failed {
			if g.chance(0.25) {
				p.disruption = pick(g, "PreemptionByScheduler", "DeletionByTaintManager", "EvictionByEvictionAPI", "TerminationByKubelet")
			}
			p.noFinishTimes = g.chance(0.08)
			if g.chance(0.5) {
				p.finished = g.now.Add(-g.secs(0, 120))
				if !p.created.Before(p.finished) {
					p.created = p.finished.Add(-g.secs(1, 60))
				}
			}
		}
		if perIndex && g.chance(0.6) {
			p.failCount = i32(g.between(0, int(*job.Spec.BackoffLimitPerIndex)+1))
			if g.chance(0.2) {
				p.ignoredCount = i32(g.between(1, 2))
			}
		}
		if job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && !p.terminal() && g.chance(0.3) {
			p.restarts = int32(g.between(1, 4))
		}
		p.noFinalizer = g.chance(0.04)
	}
	h.ghostSucc = g.between(0, 2)
	h.ghostFail = g.between(0, 2)
	g.build()

	st := &job.Status
	at := g.now.Add(-g.secs(1, 300))
	if g.suspended() {
		if g.chance(0.6) {
			g.condition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", at)
			if g.chance(0.6) {
				st.StartTime = nil
			}
		}
	} else if g.chance(0.3) {
		if g.chance(0.5) {
			// Suspended earlier; spec.suspend was just set back to false.
			g.condition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", at)
		} else {
			g.condition(batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", at)
			if st.StartTime != nil && st.StartTime.Time.Before(at) {
				g.setStartTime(at)
			}
		}
	}
	switch g.between(0, 9) {
	case 0:
		g.condition(batchv1.JobFailureTarget, corev1.ConditionTrue, pick(g, batchv1.JobReasonBackoffLimitExceeded, batchv1.JobReasonDeadlineExceeded, batchv1.JobReasonPodFailurePolicy, batchv1.JobReasonMaxFailedIndexesExceeded, batchv1.JobReasonFailedIndexes), "Job is failing", at)
	case 1:
		g.condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, pick(g, batchv1.JobReasonCompletionsReached, batchv1.JobReasonSuccessPolicy), "Job is succeeding", at)
	}
	if indexed && c > 0 && ptr.Equal(job.Spec.Parallelism, job.Spec.Completions) && g.chance(0.3) {
		// An elastic Job (completions == parallelism) scaled down: the
		// completedIndexes written before still reach beyond completions.
		st.CompletedIndexes = pick(g, fmt.Sprintf("0-%d", c+3), fmt.Sprint(c+1), fmt.Sprintf("%d,%d", max(c-1, 0), c+2))
	}
	if g.chance(0.05) {
		// Expectations whose counts went below zero (more pods observed
		// than were expected: the informer caught up after a reset).
		g.exp.Creations = -int64(g.between(1, 2))
		g.exp.SetAt = g.now.Add(-g.secs(1, 200))
	}
	if g.chance(0.1) {
		t := g.now.Add(-g.secs(0, 700))
		g.bo = &backoff.Record{FailuresAfterLastSuccess: int32(g.between(0, 9)), LastFailureTime: &t}
	}
	if g.chance(0.05) {
		// Pods already accounted for but still listed as uncounted under
		// both kinds (a corrupted status).
		if st.UncountedTerminatedPods == nil {
			st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
		}
		st.UncountedTerminatedPods.Succeeded = append(st.UncountedTerminatedPods.Succeeded, types.UID(g.uid()))
	}
	if g.chance(0.06) {
		dt := metav1.NewTime(g.now.Add(-g.secs(0, 60)))
		job.DeletionTimestamp = &dt
		job.Finalizers = []string{metav1.FinalizerDeleteDependents}
	}
}

// combinedShape draws a Job using any mix of features; later attempts
// (after the API server refused a mix) use fewer of them.
func (g *G) combinedShape(attempt int) shape {
	rich := attempt < 10
	s := shape{}
	s.indexed = g.chance(0.5)
	if s.indexed || g.chance(0.8) {
		s.completions = i32(g.between(0, 10))
		if s.indexed && *s.completions == 0 && g.chance(0.7) {
			s.completions = i32(g.between(1, 10))
		}
	}
	s.parallelism = maybe(g, 0.2, int32(g.between(0, 8)))
	if g.chance(0.5) {
		s.backoffLimit = i32(g.between(0, 6))
	}
	if g.chance(0.25) {
		s.restartPolicy = corev1.RestartPolicyOnFailure
	}
	if g.chance(0.2) {
		s.suspend = ptr.To(true)
	}
	if g.chance(0.25) {
		s.activeDeadlineSeconds = ptr.To(int64(g.between(60, 7200)))
	}
	if rich && s.indexed && g.chance(0.4) {
		s.backoffLimitPerIndex = i32(g.between(0, 3))
		if g.chance(0.4) && s.completions != nil {
			s.maxFailedIndexes = i32(g.between(0, int(*s.completions)))
		}
	}
	if rich && s.indexed && s.completions != nil && *s.completions > 0 && g.chance(0.3) {
		c := int(*s.completions)
		r := batchv1.SuccessPolicyRule{}
		if g.chance(0.5) {
			r.SucceededCount = i32(g.between(1, c))
		} else {
			str := fmt.Sprintf("%d-%d", 0, g.between(0, c-1))
			r.SucceededIndexes = &str
		}
		s.successPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{r}}
	}
	if rich && s.restartPolicy != corev1.RestartPolicyOnFailure && g.chance(0.4) {
		var rules []batchv1.PodFailurePolicyRule
		for range g.between(1, 3) {
			rule := batchv1.PodFailurePolicyRule{Action: pick(g, batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount)}
			if s.backoffLimitPerIndex != nil && g.chance(0.3) {
				rule.Action = batchv1.PodFailurePolicyActionFailIndex
			}
			if g.chance(0.6) {
				rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{
					Operator: pick(g, batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn),
					Values:   pick(g, []int32{1}, []int32{42}, []int32{2, 42}, []int32{137, 143}),
				}
				if g.chance(0.3) {
					rule.OnExitCodes.ContainerName = ptr.To(pick(g, "main", "helper"))
				}
			} else {
				rule.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: pick(g, corev1.ConditionTrue, corev1.ConditionTrue, corev1.ConditionFalse)}}
			}
			rules = append(rules, rule)
		}
		s.podFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules}
	}
	if s.podFailurePolicy == nil && g.chance(0.3) {
		s.replacementPolicy = pick(g, ptr.To(batchv1.Failed), ptr.To(batchv1.TerminatingOrFailed))
	}
	if g.chance(0.1) {
		s.managedBy = ptr.To(batchv1.JobControllerName)
	}
	s.manualSelector = g.chance(0.1)
	s.secondContainer = g.chance(0.4)
	s.initContainer = g.chance(0.2)
	s.sidecar = g.chance(0.2)
	s.longName = s.indexed && g.chance(0.05)
	return s
}
