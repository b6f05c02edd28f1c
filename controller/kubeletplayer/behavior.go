package kubeletplayer

import (
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// podKey is what a script rule can select a pod by.
type podKey struct {
	n       int // the n-th pod seen for the Job
	index   int // completion index, -1 when none
	attempt int // the n-th pod seen for the index (or the Job)
}

// behaviorFor picks the behaviour of a pod: the first rule that matches it,
// else the script's default, else a random one drawn from the seed and the
// pod's key (so that two Jobs played with one script and seed get the same
// behaviours for the same keys).
func behaviorFor(s jobsynctest.Script, k podKey, policy corev1.RestartPolicy, seed int64) jobsynctest.Behavior {
	for _, r := range s.Pods {
		if r.Pod != nil && *r.Pod != k.n {
			continue
		}
		if r.Index != nil && *r.Index != k.index {
			continue
		}
		if r.Attempt != nil && *r.Attempt != k.attempt {
			continue
		}
		return r.Behavior
	}
	if s.Default != nil {
		return *s.Default
	}
	return randomBehavior(k, policy, seed)
}

// failureExitCodes are the exit codes of randomly failing pods.
var failureExitCodes = []int32{1, 2, 3, 42}

// randomBehavior draws what jobsynctest's random model draws: mostly success
// after up to two minutes, sometimes a failure with one of
// failureExitCodes, sometimes a disruption; under restartPolicy OnFailure
// sometimes one or two restarts first.
func randomBehavior(k podKey, policy corev1.RestartPolicy, seed int64) jobsynctest.Behavior {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(k.n)<<40^uint64(k.index+1)<<20^uint64(k.attempt)))
	b := jobsynctest.Behavior{
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
