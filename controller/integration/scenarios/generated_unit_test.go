package scenarios

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestGeneratedJobsCanFinish: no generated Job's pods behave, by default,
// in a way its pod failure policy ignores, which would replace them
// forever (g1-143, disrupted pods under an Ignore rule for DisruptionTarget,
// ran on both sides until the 90s timeout).
func TestGeneratedJobsCanFinish(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		for i := range 1000 {
			sc := generate(seed, i)
			job := baseJob("g")
			sc.job(job)
			if job.Spec.PodFailurePolicy == nil {
				continue
			}
			d := sc.script.Default
			for _, r := range job.Spec.PodFailurePolicy.Rules {
				if r.Action != batchv1.PodFailurePolicyActionIgnore {
					continue
				}
				for _, c := range r.OnPodConditions {
					if c.Type == corev1.DisruptionTarget && d.Disruption {
						t.Errorf("%s (%s): pods are disrupted by default and disruptions are ignored", sc.name, sc.description)
					}
				}
				if r.OnExitCodes != nil && d.ExitCode == 42 && !d.Disruption {
					t.Errorf("%s (%s): pods exit 42 by default and exit code 42 is ignored", sc.name, sc.description)
				}
			}
		}
	}
}
