package jobsync

import "time"

// A step that decides part of the plan (the scan, the pod step, track)
// fills a plan part of its own and returns it, and Reconcile assembles the
// parts in order: no step reads what another added to the plan, and the
// memory a step starts from is handed to it. A step's helpers add to the
// part through a pointer to it, which stays on the step's stack: the parts
// cost a sync no allocation.

// newPart returns an empty plan part whose memory is mem, the memory as the
// plan stands before the step: a step changes it from there.
func newPart(mem Memory) Plan { return Plan{Expectations: mem.Expectations, Backoff: mem.Backoff} }

// memory returns the memory the plan keeps so far.
func (p *Plan) memory() Memory { return Memory{Expectations: p.Expectations, Backoff: p.Backoff} }

// assemble adds part, made by newPart from p's memory, to p: its lists
// after p's, its status writes where it has them, the earlier of the two
// requeue requests, and its memory.
func (p *Plan) assemble(part Plan) {
	p.Releases = join(p.Releases, part.Releases)
	p.Adoptions = join(p.Adoptions, part.Adoptions)
	p.Deletions = join(p.Deletions, part.Deletions)
	p.Creations = join(p.Creations, part.Creations)
	if part.InterimStatus != nil {
		p.InterimStatus = part.InterimStatus
	}
	p.FinalizerRemovals = join(p.FinalizerRemovals, part.FinalizerRemovals)
	if part.Status != nil {
		p.Status = part.Status
	}
	p.requeueAt(part.RequeueAfter)
	p.Events = join(p.Events, part.Events)
	p.Notes = join(p.Notes, part.Notes)
	p.Expectations, p.Backoff = part.Expectations, part.Backoff
}

// requeueAt asks p to look again after d, keeping the earlier request;
// zero is no request.
func (p *Plan) requeueAt(d time.Duration) {
	if d > 0 && (p.RequeueAfter == 0 || d < p.RequeueAfter) {
		p.RequeueAfter = d
	}
}

// addNote adds note to p's notes, unless it is empty (no note).
func (p *Plan) addNote(note string) {
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
}

// addEvent adds ev to p's events when add is true.
func (p *Plan) addEvent(ev Event, add bool) {
	if add {
		p.Events = append(p.Events, ev)
	}
}

// join appends b to a, and returns whichever is empty's other as it is.
func join[T any](a, b []T) []T {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	return append(a, b...)
}
