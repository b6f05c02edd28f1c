package kubeletplayer

import (
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// podKey is what a script rule can select a pod by.
type podKey struct {
	n       int // the n-th pod seen for the Job
	index   int // completion index, -1 when none
	attempt int // the n-th pod seen for the index (or the Job)
}

// behaviorFor picks the behaviour of a pod: the script's, else a random one
// drawn, as jobsynctest draws it, from a source seeded by the seed and the
// pod's key (so that two Jobs played with one script and seed get the same
// behaviours for the same keys).
func behaviorFor(s jobsynctest.Script, k podKey, policy corev1.RestartPolicy, seed int64) jobsynctest.Behavior {
	if b, ok := s.Pick(k.n, k.index, k.attempt); ok {
		return b
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(k.n)<<40^uint64(k.index+1)<<20^uint64(k.attempt)))
	return jobsynctest.RandomBehavior(rng, policy)
}
