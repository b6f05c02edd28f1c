package jobsynctest

import (
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Pick finds the behaviour a script gives the n-th pod of a Job (from 0, in
// creation order), of completion index index (-1 when the Job is not
// Indexed) and attempt (the n-th pod of that index, or of the Job): the
// first rule that matches, else the default. It reports false when the
// script leaves the pod to the random model (RandomBehavior).
func (s Script) Pick(n, index, attempt int) (Behavior, bool) {
	for _, r := range s.Pods {
		if r.Pod != nil && *r.Pod != n {
			continue
		}
		if r.Index != nil && *r.Index != index {
			continue
		}
		if r.Attempt != nil && *r.Attempt != attempt {
			continue
		}
		return r.Behavior, true
	}
	if s.Default != nil {
		return *s.Default, true
	}
	return Behavior{}, false
}

// failureExitCodes are the exit codes of randomly failing pods.
var failureExitCodes = []int32{1, 2, 3, 42}

// RandomBehavior draws the behaviour of a pod no script rule picks: mostly
// success after up to two minutes, sometimes a failure with exit code 1, 2,
// 3 or 42, sometimes a disruption; under restartPolicy OnFailure sometimes
// one or two restarts first. The draws come from rng in a fixed order, so
// one source gives one sequence of behaviours wherever it is drawn.
func RandomBehavior(rng *rand.Rand, policy corev1.RestartPolicy) Behavior {
	b := Behavior{
		StartDelay: time.Duration(rng.IntN(11)) * time.Second,
		RunTime:    time.Duration(1+rng.IntN(120)) * time.Second,
		Shutdown:   time.Duration(rng.IntN(11)) * time.Second,
	}
	switch r := rng.Float64(); {
	case r < 0.65:
	case r < 0.9:
		b.ExitCode = failureExitCodes[rng.IntN(len(failureExitCodes))]
	default:
		b.Disruption = true
		if rng.IntN(2) == 0 {
			b.DisruptionReason = "EvictionByEvictionAPI"
		}
	}
	if policy == corev1.RestartPolicyOnFailure && rng.IntN(3) == 0 {
		b.Restarts = int32(1 + rng.IntN(2))
	}
	return b
}
