package jobsync

import (
	"slices"

	"github.com/jobsync/jobsync/backoff"
)

// DeepCopy returns a copy of the plan that shares no memory with it: a
// caller may keep one and change the other. (Reconcile's plans already
// share no memory with the snapshot they came from.)
func (p Plan) DeepCopy() Plan {
	c := p
	c.Releases = copyClaims(p.Releases)
	c.Adoptions = copyClaims(p.Adoptions)
	c.Deletions = slices.Clone(p.Deletions)
	if p.Creations != nil {
		c.Creations = make([]PodCreation, len(p.Creations))
		for i, pc := range p.Creations {
			c.Creations[i] = PodCreation{Pod: pc.Pod.DeepCopy(), Reason: pc.Reason}
			if pc.CompletionIndex != nil {
				ix := *pc.CompletionIndex
				c.Creations[i].CompletionIndex = &ix
			}
		}
	}
	c.InterimStatus = p.InterimStatus.DeepCopy()
	c.FinalizerRemovals = slices.Clone(p.FinalizerRemovals)
	c.Status = p.Status.DeepCopy()
	c.Events = slices.Clone(p.Events)
	// c.Expectations is shared as it is: its FinalizerRemovals is an
	// immutable expectations.UIDSet.
	c.Backoff = copyBackoff(p.Backoff)
	c.Notes = slices.Clone(p.Notes)
	return c
}

func copyClaims(cs []PodClaim) []PodClaim {
	if cs == nil {
		return nil
	}
	out := make([]PodClaim, len(cs))
	for i, c := range cs {
		out[i] = c
		out[i].OwnerReference = *c.OwnerReference.DeepCopy()
		out[i].Patch = slices.Clone(c.Patch)
	}
	return out
}

// copyBackoff returns r with its own LastFailureTime.
func copyBackoff(r backoff.Record) backoff.Record {
	if r.LastFailureTime != nil {
		t := *r.LastFailureTime
		r.LastFailureTime = &t
	}
	return r
}
