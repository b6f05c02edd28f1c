package gen

import (
	"fmt"
	"math"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/backoff"
)

// activePhase picks the phase of a pod that has not finished.
func (g *G) activePhase() phase {
	return pick(g, unscheduled, pending, running, ready, ready, ready)
}

// template choices shared by most families.
func (g *G) containers(s *shape) {
	s.sidecar = g.chance(0.15)
	s.initContainer = g.chance(0.15)
	s.secondContainer = g.chance(0.15)
}

func i32(v int) *int32 { return ptr.To(int32(v)) }

// maybe returns v, or nil (left to the API server's defaults) with
// chance p.
func maybe[T any](g *G, p float64, v T) *T {
	if g.chance(p) {
		return nil
	}
	return &v
}

// activePods adds n pods that have not finished, without index.
func (g *G) activePods(n int, ix func(int) int) {
	for i := range n {
		p := g.pod(ix(i), g.activePhase())
		if g.job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && p.phase >= running && g.chance(0.4) {
			p.restarts = int32(g.between(1, 3))
		}
	}
}

func noIndex(int) int { return -1 }

// --- basic: non-indexed Jobs with a number of completions ---

func familyBasic(g *G) {
	c := g.between(1, 8)
	s := shape{completions: i32(c), parallelism: maybe(g, 0.2, int32(g.between(1, 6))), manualSelector: g.chance(0.1)}
	if g.chance(0.05) {
		s.parallelism = i32(0) // paused by scaling to zero
	}
	if g.chance(0.25) {
		s.restartPolicy = corev1.RestartPolicyOnFailure
	}
	if g.chance(0.4) {
		s.backoffLimit = i32(g.between(0, 6))
	}
	g.containers(&s)
	g.newJob(s)
	h := g.begin()
	par := int(*g.job.Spec.Parallelism)
	nSucc := g.between(0, c)
	if g.chance(0.08) {
		nSucc = c + g.between(1, 2) // more pods succeeded than needed
	}
	nActive := g.between(0, min(par, c))
	if g.chance(0.15) {
		nActive += g.between(1, 3) // too many: scale-down
	}
	for range nSucc {
		g.pod(-1, succeeded)
	}
	for range g.between(0, 2) {
		g.pod(-1, failed)
	}
	g.activePods(nActive, noIndex)
	if g.chance(0.3) {
		g.terminating(-1, pick(g, running, ready, pending))
	}
	if g.chance(0.1) {
		h.ghostSucc = g.between(1, 2)
	}
	g.build()
	g.interimConditions()
}

// --- work-queue: no completions; done once any pod succeeded and the rest stopped ---

func familyWorkQueue(g *G) {
	s := shape{parallelism: i32(g.between(1, 8))}
	g.containers(&s)
	if g.chance(0.3) {
		s.backoffLimit = i32(g.between(0, 4))
	}
	g.newJob(s)
	g.begin()
	par := int(*g.job.Spec.Parallelism)
	if g.chance(0.5) {
		for range g.between(1, 3) {
			g.pod(-1, succeeded)
		}
	}
	for range g.between(0, 2) {
		g.pod(-1, failed)
	}
	n := g.between(0, par)
	if g.chance(0.15) {
		n = par + g.between(1, 2)
	}
	g.activePods(n, noIndex)
	if g.chance(0.25) {
		g.terminating(-1, pick(g, running, ready))
	}
	g.build()
	g.interimConditions()
}

// --- suspend: suspending, suspended, resuming, resumed ---

func familySuspend(g *G) {
	s := shape{completions: i32(g.between(1, 6)), parallelism: i32(g.between(1, 4)), indexed: g.chance(0.3)}
	variant := g.between(0, 4)
	s.suspend = ptr.To(variant <= 2)
	if g.chance(0.1) {
		s.completions = i32(0)
	}
	g.containers(&s)
	g.newJob(s)
	if g.chance(0.25) {
		g.opts.KeepStartTimeOnSuspend = true
	}
	h := g.begin()
	ix := g.cyclicIndex()
	par := int(*g.job.Spec.Parallelism)
	switch variant {
	case 0: // just suspended: pods still running, no condition yet
		g.activePods(g.between(0, par), ix)
	case 1: // suspended earlier: condition set, pods terminating or gone
		for i := range g.between(0, 2) {
			g.terminating(ix(i), pick(g, running, ready))
		}
	case 2: // created suspended: never started
		h.start = time.Time{}
	case 3, 4: // resumed now (variant 3) or earlier (variant 4)
		g.activePods(g.between(0, par), ix)
	}
	if variant != 2 {
		for i := range g.between(0, 2) {
			g.pod(ix(par+i), pick(g, succeeded, failed))
		}
	}
	g.build()
	switch variant {
	case 1:
		at := g.now.Add(-g.secs(5, 600))
		g.condition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", at)
		if !g.opts.KeepStartTimeOnSuspend && g.chance(0.8) {
			g.job.Status.StartTime = nil
		}
	case 3:
		g.condition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", g.now.Add(-g.secs(5, 600)))
		if g.chance(0.5) {
			g.job.Status.StartTime = nil
		}
	case 4:
		at := g.now.Add(-g.secs(5, 600))
		g.condition(batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", at)
		if g.job.Status.StartTime != nil && g.job.Status.StartTime.Time.Before(at) {
			g.setStartTime(at)
		}
	}
	if g.chance(0.3) && variant <= 2 {
		g.job.Spec.ActiveDeadlineSeconds = ptr.To(int64(g.between(10, 300)))
	}
}

// --- deadline: activeDeadlineSeconds just before, at and after the end ---

func familyDeadline(g *G) {
	s := shape{completions: maybe(g, 0.2, int32(g.between(1, 6))), parallelism: i32(g.between(1, 4)), indexed: g.chance(0.2)}
	if s.indexed && s.completions == nil {
		s.completions = i32(3)
	}
	if g.chance(0.15) {
		s.suspend = ptr.To(true)
	}
	ads := int64(g.between(30, 3600))
	s.activeDeadlineSeconds = &ads
	g.containers(&s)
	g.newJob(s)
	h := g.begin()
	// Start so that the deadline falls shortly before or after now.
	h.start = g.now.Add(-time.Duration(ads)*time.Second + g.secs(-120, 120))
	if g.chance(0.1) {
		h.start = g.now.Add(-time.Duration(ads) * time.Second) // the deadline is now
	}
	if h.start.After(g.now) {
		// A short deadline with a late start would put startTime, and the
		// pods, in the future: no controller's clock gives that.
		h.start = g.now
	}
	if h.start.Before(g.job.CreationTimestamp.Time) {
		g.job.CreationTimestamp = metav1.NewTime(h.start.Add(-g.secs(0, 5)))
	}
	h.waves = []time.Time{h.start.Add(g.secs(0, 2))}
	ix := func(i int) int {
		if s.indexed {
			return i
		}
		return -1
	}
	g.activePods(g.between(0, int(*g.job.Spec.Parallelism)), ix)
	for range g.between(0, 2) {
		g.pod(-1, pick(g, succeeded, failed))
	}
	if g.chance(0.2) {
		g.terminating(-1, running)
	}
	g.build()
	if g.suspended() && g.chance(0.6) {
		g.condition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", g.now.Add(-g.secs(1, 60)))
	}
	if g.chance(0.15) {
		g.condition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", g.now.Add(-g.secs(1, 30)))
	}
}

// --- backoff: failures against backoffLimit and the pod-recreation delay ---

func familyBackoff(g *G) {
	limit := g.between(0, 6)
	s := shape{completions: i32(g.between(1, 6)), parallelism: i32(g.between(1, 4)), backoffLimit: i32(limit)}
	if g.chance(0.35) {
		s.restartPolicy = corev1.RestartPolicyOnFailure
	}
	if g.chance(0.15) {
		s.indexed = true
	}
	g.containers(&s)
	g.newJob(s)
	h := g.begin()
	if g.chance(0.1) {
		h.memory = memoryLost
	}
	ix := g.cyclicIndex()
	nFail := g.between(0, limit+1)
	if g.chance(0.2) {
		nFail = limit + 1 + g.between(0, 2)
	}
	for i := range nFail {
		p := g.pod(ix(i), failed)
		// Recent failures, so that the backoff delay is still running.
		if g.chance(0.7) {
			p.finished = g.now.Add(-g.secs(0, 400))
			if g.chance(0.1) {
				// Exactly at the end of a delay of 10s, 20s or 40s.
				p.finished = g.now.Add(-time.Duration(pick(g, 10, 20, 40, 80)) * time.Second)
			}
			if !p.created.Before(p.finished) {
				p.created = p.finished.Add(-g.secs(1, 30))
			}
		}
	}
	if g.chance(0.4) {
		g.pod(ix(nFail), succeeded)
	}
	g.activePods(g.between(0, int(*g.job.Spec.Parallelism)-1), ix)
	if s.restartPolicy == corev1.RestartPolicyOnFailure {
		for _, p := range g.pending {
			if !p.terminal() && p.phase >= running {
				p.restarts = int32(g.between(0, limit+1))
			}
		}
	}
	if g.chance(0.2) {
		h.ghostFail = g.between(1, limit+1)
	}
	g.build()
	if g.chance(0.2) {
		// A record that disagrees with the pods: kept from before a restart
		// of the pods' informer, or from pods since gone.
		t := g.now.Add(-g.secs(0, 900))
		g.bo = &backoff.Record{FailuresAfterLastSuccess: int32(g.between(1, 8)), LastFailureTime: &t}
	}
	g.interimConditions()
}

// --- finalizers: uncounted pods, pending removals, and more than 500 at once ---

func familyFinalizers(g *G) {
	big := g.chance(0.12)
	c := g.between(1, 10)
	if big {
		c = g.between(400, 1200)
	}
	s := shape{completions: maybe(g, 0.15, int32(c)), parallelism: i32(g.between(1, 6)), indexed: g.chance(0.25)}
	if s.indexed && s.completions == nil {
		s.completions = i32(c)
	}
	if big {
		s.parallelism = i32(g.between(100, 600))
	}
	g.newJob(s)
	h := g.begin()
	h.acctWeight = [4]int{30, 30, 20, 20}
	if big {
		h.acctWeight = [4]int{85, 10, 2, 3}
	}
	ix := g.cyclicIndex()
	n := g.between(0, 8)
	if big {
		n = g.between(450, 700)
	}
	for i := range n {
		g.pod(ix(i), pick(g, succeeded, succeeded, failed))
	}
	for i := range g.between(0, 3) {
		g.pod(ix(n+i), g.activePhase())
	}
	if big && g.chance(0.25) {
		// Far too many running pods (parallelism was lowered): more
		// deletions than one sync may make.
		g.job.Spec.Parallelism = i32(g.between(0, 50))
		for i := range g.between(520, 650) {
			g.pod(ix(n+3+i), g.activePhase())
		}
	}
	if g.chance(0.2) {
		// Pods from before the Job tracked finalizers.
		for i := range g.between(1, 2) {
			p := g.pod(ix(n+3+i), pick(g, succeeded, failed))
			p.noFinalizer = true
			p.acct = acNew
		}
	}
	if g.chance(0.15) {
		g.terminating(-1, running)
	}
	h.ghostSucc = g.between(0, 3)
	h.ghostFail = g.between(0, 2)
	g.build()
	if g.chance(0.15) {
		// Finished orphans (their controller reference was removed), as old
		// as the Job: adopted, and behind the Job's own pods when the cap
		// is in play.
		for i := range g.between(1, 3) {
			created := g.job.CreationTimestamp.Add(g.secs(1, 5))
			if created.After(g.now) {
				created = g.now
			}
			p := &podPlan{index: ix(i), phase: pick(g, succeeded, failed), owner: orphan, created: created}
			p.finished = p.created.Add(g.secs(0, 1))
			if p.finished.After(g.now) {
				p.finished = g.now
			}
			p.noFinalizer = g.chance(0.3)
			g.addPod(p)
		}
	}
	if g.chance(0.08) && g.job.Status.UncountedTerminatedPods != nil {
		// An uncounted UID whose pod is gone altogether.
		u := g.job.Status.UncountedTerminatedPods
		u.Failed = append(u.Failed, types.UID(g.uid()))
	}
	g.interimConditions()
}

// --- indexed: completion indexes, duplicates, out-of-range and broken ones ---

func familyIndexed(g *G) {
	c := g.between(1, 20)
	s := shape{indexed: true, completions: i32(c), parallelism: maybe(g, 0.2, int32(g.between(1, c+2))), longName: g.chance(0.1)}
	if g.chance(0.2) {
		s.restartPolicy = corev1.RestartPolicyOnFailure
	}
	g.containers(&s)
	g.newJob(s)
	h := g.begin()
	par := int(*g.job.Spec.Parallelism)
	activeLeft := par + g.between(-1, 1)
	for i := range c {
		switch x := g.r.Float64(); {
		case x < 0.3 && activeLeft > 0:
			g.pod(i, g.activePhase())
			activeLeft--
		case x < 0.55:
			g.pod(i, succeeded)
		case x < 0.65:
			g.pod(i, failed)
			if activeLeft > 0 && g.chance(0.5) {
				g.pod(i, g.activePhase())
				activeLeft--
			}
		case x < 0.7:
			// Two pods for one index (a replacement raced the original).
			g.pod(i, g.activePhase())
			g.pod(i, g.activePhase())
		case x < 0.73:
			g.pod(i, succeeded)
			g.pod(i, pick(g, succeeded, failed, ready))
		}
	}
	if g.chance(0.1) {
		g.pod(c+g.between(0, 3), pick(g, ready, succeeded)) // out of range
	}
	if g.chance(0.05) {
		p := g.pod(-1, ready)
		p.rawIndex = pick(g, "x", "-1", "01a")
	}
	if g.chance(0.05) {
		g.pod(-1, running) // no index at all
	}
	if g.chance(0.2) {
		g.terminating(g.between(0, c-1), running)
	}
	if g.chance(0.1) && c > 2 {
		h.ghostIdx = []int{g.between(0, c-1)}
	}
	g.build()
	g.interimConditions()
}

// --- elastic: Indexed Jobs with completions == parallelism, scaled up or down ---

func familyElastic(g *G) {
	old := g.between(1, 12)
	now := max(1, old+g.between(-5, 5))
	s := shape{indexed: true, completions: i32(now), parallelism: i32(now)}
	g.newJob(s)
	h := g.begin()
	var done []int
	for i := range old {
		switch x := g.r.Float64(); {
		case x < 0.45:
			g.pod(i, g.activePhase())
		case x < 0.8:
			p := g.pod(i, succeeded)
			if p.acct != acNew {
				done = append(done, i)
			}
		case x < 0.9:
			g.pod(i, failed)
		}
	}
	_ = h
	g.build()
	// The status was written when completions were `old`: completed
	// indexes at or above the new completions are still listed.
	if len(done) > 0 && g.chance(0.7) {
		g.job.Status.CompletedIndexes = formatIndexes(done)
		g.job.Status.Succeeded = int32(len(done))
	}
	g.job.Generation = 2
}

// --- per-index backoff: backoffLimitPerIndex, maxFailedIndexes, FailIndex ---

func familyPerIndexBackoff(g *G) {
	c := g.between(1, 12)
	limit := g.between(0, 3)
	s := shape{indexed: true, completions: i32(c), parallelism: i32(g.between(1, c+1)), backoffLimitPerIndex: i32(limit)}
	if g.chance(0.4) {
		s.maxFailedIndexes = i32(g.between(0, c))
	}
	if g.chance(0.2) {
		s.backoffLimit = i32(g.between(1, 10))
	}
	if g.chance(0.3) {
		s.podFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
		}}
	}
	g.newJob(s)
	h := g.begin()
	for i := range c {
		switch x := g.r.Float64(); {
		case x < 0.25:
			g.pod(i, g.activePhase())
		case x < 0.45:
			g.pod(i, succeeded)
		case x < 0.9:
			// A chain of failures on this index, newest carrying the count.
			n := g.between(1, limit+2)
			for k := range n {
				p := g.pod(i, failed)
				p.failCount = i32(k)
				if g.chance(0.15) {
					p.disruption = "PreemptionByScheduler"
				}
				// Strictly increasing finish times along the chain, recent
				// enough for the per-index delay to matter.
				p.finished = g.now.Add(-time.Duration(n-k)*g.secs(20, 120) + g.secs(0, 10))
				if k == n-1 && g.chance(0.6) {
					p.finished = g.now.Add(-g.secs(0, 30))
				}
				if !p.created.Before(p.finished) {
					p.created = p.finished.Add(-g.secs(1, 20))
				}
				if k < n-1 {
					p.acct = pick(g, acCounted, acCounted, acRemoving)
				}
			}
			if g.chance(0.25) {
				// Failure counts and finish times that disagree: a pod
				// being deleted (counted as failed unless only Failed pods
				// are replaced) carries the highest count but finished, by
				// its Ready=False transition, before the others; or the
				// chain's earlier pods are still tracked with their counts
				// shuffled. Upstream's choice of the pod kept for the
				// replacement then depends on its listing order.
				if g.chance(0.5) {
					p := g.terminating(i, pick(g, running, pending))
					p.failCount = i32(n + g.between(0, 1))
					p.acct = acNew
				} else {
					chain := g.pending[len(g.pending)-n:]
					for _, p := range chain {
						p.acct = acNew
						p.failCount = i32(g.between(0, n))
					}
				}
			} else if g.chance(0.3) {
				p := g.pod(i, g.activePhase())
				p.failCount = i32(n)
			}
		}
	}
	g.build()
	_ = h
	g.interimConditions()
}

// --- success policy ---

func familySuccessPolicy(g *G) {
	c := g.between(1, 12)
	rule := batchv1.SuccessPolicyRule{}
	switch g.between(0, 2) {
	case 0:
		rule.SucceededCount = i32(g.between(1, c))
	case 1:
		lo := g.between(0, c-1)
		hi := g.between(lo, c-1)
		str := fmt.Sprint(lo)
		if hi > lo {
			str = fmt.Sprintf("%d-%d", lo, hi)
		}
		rule.SucceededIndexes = &str
	case 2:
		str := "0"
		if c > 2 {
			str = fmt.Sprintf("0,%d", c-1)
		}
		rule.SucceededIndexes = &str
		rule.SucceededCount = i32(1)
	}
	s := shape{indexed: true, completions: i32(c), parallelism: i32(g.between(1, c)), successPolicy: &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{rule}}}
	g.newJob(s)
	g.begin()
	for i := range c {
		switch x := g.r.Float64(); {
		case x < 0.35:
			g.pod(i, g.activePhase())
		case x < 0.8:
			g.pod(i, succeeded)
		case x < 0.9:
			g.pod(i, failed)
		}
	}
	if g.chance(0.2) {
		g.terminating(g.between(0, c-1), running)
	}
	g.build()
	if g.chance(0.2) {
		g.condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonSuccessPolicy, "Matched rules at index 0", g.now.Add(-g.secs(1, 60)))
	}
}

// --- pod failure policy ---

func familyPodFailurePolicy(g *G) {
	indexed := g.chance(0.3)
	var rules []batchv1.PodFailurePolicyRule
	main := "main"
	if g.chance(0.5) {
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: pick(g, (*string)(nil), &main), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}})
	}
	if g.chance(0.7) {
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}})
	}
	if g.chance(0.4) {
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionCount,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0, 42}}})
	}
	if g.chance(0.3) {
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{137, 143}}})
	}
	if len(rules) == 0 {
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2}}})
	}
	c := g.between(1, 8)
	s := shape{completions: i32(c), parallelism: i32(g.between(1, 5)), indexed: indexed, backoffLimit: i32(g.between(0, 4)),
		podFailurePolicy: &batchv1.PodFailurePolicy{Rules: rules}}
	if g.chance(0.25) {
		s.replacementPolicy = ptr.To(batchv1.Failed) // the only value allowed with a pod failure policy
	}
	s.secondContainer = g.chance(0.3)
	s.initContainer = g.chance(0.15)
	g.newJob(s)
	g.begin()
	ix := g.cyclicIndex()
	nFail := g.between(0, 4)
	for i := range nFail {
		p := g.pod(ix(i), failed)
		if g.chance(0.3) {
			p.disruption = pick(g, "PreemptionByScheduler", "DeletionByTaintManager", "EvictionByEvictionAPI", "TerminationByKubelet")
		}
		if g.chance(0.1) {
			p.noFinishTimes = true
		}
	}
	g.activePods(g.between(0, int(*g.job.Spec.Parallelism)), func(i int) int { return ix(nFail + i) })
	if g.chance(0.3) {
		g.pod(ix(c-1), succeeded)
	}
	if g.chance(0.3) {
		g.terminating(ix(0), pick(g, running, ready))
	}
	g.build()
	if g.chance(0.15) {
		// A failed orphan (its controller reference was removed) as old as
		// the Job: adopted, and listed by upstream after the Job's own pods,
		// whatever its index, when it picks the pod a FailJob message names.
		created := g.job.CreationTimestamp.Add(g.secs(1, 5))
		if created.After(g.now) {
			created = g.now
		}
		p := &podPlan{index: ix(pick(g, 0, 0, g.between(0, c-1))), phase: failed, owner: orphan, created: created,
			exitCode: pick(g, int32(1), 42, 42, 137), finished: created}
		g.addPod(p)
	}
	if g.chance(0.12) {
		g.condition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonPodFailurePolicy,
			"Container main for pod "+g.job.Namespace+"/"+g.job.Name+"-x failed with exit code 42 matching FailJob rule at index 0", g.now.Add(-g.secs(1, 30)))
	} else {
		g.interimConditions()
	}
}

// --- replacement policy: Failed vs TerminatingOrFailed with terminating pods ---

func familyReplacementPolicy(g *G) {
	c := g.between(1, 8)
	s := shape{completions: i32(c), parallelism: i32(g.between(1, 5)), indexed: g.chance(0.4),
		replacementPolicy: pick(g, ptr.To(batchv1.Failed), ptr.To(batchv1.TerminatingOrFailed), nil)}
	g.newJob(s)
	g.begin()
	ix := g.cyclicIndex()
	nTerm := g.between(0, 3)
	for i := range nTerm {
		g.terminating(ix(i), pick(g, running, ready, pending, failed))
	}
	g.activePods(g.between(0, int(*g.job.Spec.Parallelism)), func(i int) int { return ix(nTerm + i) })
	for range g.between(0, 2) {
		g.pod(ix(g.between(0, c-1)), pick(g, succeeded, failed))
	}
	g.build()
	g.interimConditions()
}

// --- managed-by: Jobs for the built-in controller and for another one ---

func familyManagedBy(g *G) {
	s := shape{completions: i32(g.between(1, 5)), parallelism: i32(g.between(1, 3)), indexed: g.chance(0.2)}
	switch g.between(0, 2) {
	case 0:
		s.managedBy = ptr.To(batchv1.JobControllerName)
	default:
		s.managedBy = ptr.To(pick(g, "example.com/batch-controller", "kueue.x-k8s.io/multikueue"))
	}
	g.newJob(s)
	g.begin()
	ix := g.cyclicIndex()
	g.activePods(g.between(0, 3), ix)
	for i := range g.between(0, 2) {
		g.pod(ix(i), pick(g, succeeded, failed))
	}
	g.build()
	g.interimConditions()
}

// --- deleted-job: the Job has a deletion timestamp ---

func familyDeletedJob(g *G) {
	s := shape{completions: i32(g.between(1, 6)), parallelism: i32(g.between(1, 4)), indexed: g.chance(0.3)}
	g.newJob(s)
	g.begin()
	ix := g.cyclicIndex()
	g.activePods(g.between(0, 4), ix)
	for i := range g.between(0, 3) {
		g.pod(ix(i), pick(g, succeeded, failed))
	}
	if g.chance(0.3) {
		g.terminating(ix(0), running)
	}
	g.build()
	if g.chance(0.15) {
		// An orphan that matches: a Job being deleted cannot adopt it.
		p := &podPlan{index: -1, phase: ready, owner: orphan, created: g.now.Add(-g.secs(10, 100))}
		if s.indexed {
			p.index = 0
		}
		g.addPod(p)
	}
	dt := metav1.NewTime(g.now.Add(-g.secs(0, 120)))
	g.job.DeletionTimestamp = &dt
	g.job.DeletionGracePeriodSeconds = ptr.To[int64](0)
	g.job.Finalizers = []string{pick(g, metav1.FinalizerDeleteDependents, metav1.FinalizerOrphanDependents)}
	g.interimConditions()
}

// --- mixed: any family, then rarer situations on top ---

func familyMixed(g *G) {
	if g.chance(0.5) {
		combined(g)
	} else {
		families[pick(g, baseFamilies...)](g)
	}
	x := g.r.Float64()
	switch {
	case x < 0.08:
		g.finishedJob()
	case x < 0.12:
		g.exp.JobFinished = true
	case x < 0.22:
		// An orphan matching the selector (its owner was removed), in an
		// Indexed Job mostly with an index of its own.
		ix := -1
		if g.indexed() && g.chance(0.7) {
			ix = g.cyclicIndex()(g.between(0, 20))
		}
		p := &podPlan{index: ix, phase: pick(g, ready, succeeded, failed), owner: orphan, created: g.now.Add(-g.secs(10, 100))}
		p.finished = p.created.Add(time.Second)
		p.noFinalizer = g.chance(0.5)
		g.addPod(p)
	case x < 0.28:
		// A pod controlled by the Job whose labels no longer match: released.
		p := &podPlan{index: -1, phase: ready, created: g.now.Add(-g.secs(10, 100))}
		pod := g.addPod(p)
		for k := range g.job.Spec.Selector.MatchLabels {
			pod.Labels[k] = "relabelled"
		}
	case x < 0.32:
		// A pod of another controller in the same namespace, matching labels.
		p := &podPlan{index: -1, phase: running, owner: otherController, created: g.now.Add(-g.secs(10, 100))}
		g.addPod(p)
	case x < 0.36:
		p := &podPlan{index: -1, phase: unknown, created: g.now.Add(-g.secs(10, 100))}
		if g.indexed() {
			p.index = 0
		}
		g.addPod(p)
	case x < 0.40:
		// A failed pod whose kubelet reported no container statuses.
		p := &podPlan{index: -1, phase: failed, created: g.now.Add(-g.secs(10, 100)), missingContrSt: true}
		p.finished = p.created.Add(5 * time.Second)
		if g.indexed() {
			p.index = 0
		}
		g.addPod(p)
	}
}

// finishedJob turns the Job into one that has finished (Complete or
// Failed), as the controller leaves it.
func (g *G) finishedJob() {
	at := g.now.Add(-g.secs(1, 600))
	st := &g.job.Status
	if st.StartTime == nil {
		g.setStartTime(at.Add(-time.Minute))
	}
	st.Active, st.Ready, st.Terminating = 0, ptr.To[int32](0), ptr.To[int32](0)
	st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	st.Conditions = nil
	if g.chance(0.5) {
		g.condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", at)
		g.condition(batchv1.JobComplete, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", at)
		ct := metav1.NewTime(at)
		st.CompletionTime = &ct
	} else {
		g.condition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", at)
		g.condition(batchv1.JobFailed, corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", at)
	}
}

// interimConditions sometimes gives the Job an interim condition that an
// earlier sync wrote (it then waits for pods to terminate or be counted),
// matching what the counters say.
func (g *G) interimConditions() {
	if !g.chance(0.1) {
		return
	}
	st := &g.job.Status
	spec := g.job.Spec
	at := g.now.Add(-g.secs(1, 120))
	if spec.Completions != nil && st.Succeeded >= *spec.Completions && *spec.Completions > 0 {
		g.condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", at)
		return
	}
	if spec.BackoffLimit != nil && *spec.BackoffLimit != math.MaxInt32 && st.Failed > *spec.BackoffLimit {
		g.condition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", at)
	}
}
