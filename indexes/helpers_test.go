package indexes_test

import (
	"fmt"
	"slices"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/jobsync/jobsync/indexes"
)

// emptyIsNil lets tables write nil for every empty set and list.
var emptyIsNil = cmpopts.EquateEmpty()

func clone(s indexes.Set) indexes.Set { return slices.Clone(s) }

// canonicalErr says how s breaks the form every Set made by the package
// must have: intervals ascending, each non-empty and non-negative, neither
// overlapping nor adjacent.
func canonicalErr(s indexes.Set) error {
	for i, iv := range s {
		if iv.First < 0 || iv.Last < iv.First {
			return fmt.Errorf("interval %d %v is empty or negative", i, iv)
		}
		if i > 0 && iv.First <= s[i-1].Last+1 {
			return fmt.Errorf("interval %d %v overlaps or touches %v", i, iv, s[i-1])
		}
	}
	return nil
}

// members lists the indexes of s, ascending (the brute-force view).
func members(s indexes.Set) []int {
	var out []int
	for _, iv := range s {
		for ix := iv.First; ix <= iv.Last; ix++ {
			out = append(out, ix)
		}
	}
	return out
}

// fromMembers builds the canonical Set of the given indexes by hand,
// independently of the package's own merging.
func fromMembers(ixs []int) indexes.Set {
	ixs = slices.Compact(slices.Sorted(slices.Values(ixs)))
	var out indexes.Set
	for _, ix := range ixs {
		if n := len(out); n > 0 && out[n-1].Last+1 == ix {
			out[n-1].Last = ix
			continue
		}
		out = append(out, indexes.Interval{First: ix, Last: ix})
	}
	return out
}
