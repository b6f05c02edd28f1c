package jobsync

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/indexes"
)

// matchSuccessPolicy returns the SuccessCriteriaMet message of the first
// rule of the policy that the succeeded indexes satisfy, and false when none
// does. A rule with succeededIndexes is met when every listed index below
// completions succeeded, or at least succeededCount of them did; a rule
// with only succeededCount is met when that many indexes succeeded. A rule
// whose index list reads as empty is passed over, as upstream passes it.
func matchSuccessPolicy(policy *batchv1.SuccessPolicy, completions int32, succeeded indexes.Set) (string, bool) {
	if policy == nil || len(succeeded) == 0 {
		return "", false
	}
	for i, rule := range policy.Rules {
		met := false
		switch {
		case rule.SucceededIndexes != nil:
			required := indexes.ParseLenient(*rule.SucceededIndexes, int(completions))
			if len(required) == 0 {
				continue
			}
			got := countOverlap(required, succeeded)
			met = got == required.Total() || (rule.SucceededCount != nil && got >= int(*rule.SucceededCount))
		case rule.SucceededCount != nil:
			met = succeeded.Total() >= int(*rule.SucceededCount)
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// countOverlap counts the indexes of required that are in succeeded. It
// walks both lists once, as upstream does, so that a required list that
// ParseLenient left out of order is counted the same way upstream counts it.
func countOverlap(required, succeeded indexes.Set) int {
	n, r, s := 0, 0, 0
	for r < len(required) && s < len(succeeded) {
		if o := min(required[r].Last, succeeded[s].Last) - max(required[r].First, succeeded[s].First) + 1; o > 0 {
			n += o
		}
		switch {
		case succeeded[s].Last < required[r].Last:
			s++
		case succeeded[s].Last > required[r].Last:
			r++
		default:
			s++
			r++
		}
	}
	return n
}
