package gen

import (
	"time"
)

// --- owner-references: the owner references real pods carry ---

// familyOwnerReferences starts from any base family with pods given
// assorted extra owner references (none, a non-controller reference to the
// Job, references to other objects, several), then adds pods whose
// ownership is unusual: orphans that refer to the Job without controlling
// it, with and without the tracking finalizer, and pods whose controller
// reference carries the Job's UID under another kind or name.
func familyOwnerReferences(g *G) {
	g.ownerVariety = true
	families[pick(g, baseFamilies...)](g)
	if g.job.Spec.Selector == nil {
		return
	}
	ix := -1
	if g.indexed() {
		ix = g.cyclicIndex()(g.between(0, 20))
	}
	for range g.between(1, 4) {
		o := pick(g, orphan, orphan, orphan, jobUIDOtherRef)
		p := &podPlan{index: ix, phase: pick(g, ready, running, succeeded, failed, failed), owner: o, created: g.now.Add(-g.secs(10, 100))}
		if g.indexed() && g.chance(0.5) {
			p.index = g.cyclicIndex()(g.between(0, 20))
		}
		p.finished = p.created.Add(g.secs(1, 5))
		if g.chance(0.3) {
			p.failCount = i32(g.between(0, 2))
		}
		p.noFinalizer = g.chance(0.6)
		if g.chance(0.1) {
			p.deleting = true
			p.deletedAt = g.now.Add(-g.secs(0, 5))
		}
		g.addPod(p)
	}
	if g.chance(0.1) {
		// A pod the Job controls whose labels no longer match: released.
		p := &podPlan{index: ix, phase: pick(g, ready, failed), created: g.now.Add(-g.secs(10, 100))}
		p.finished = p.created.Add(time.Second)
		pod := g.addPod(p)
		for k := range g.job.Spec.Selector.MatchLabels {
			pod.Labels[k] = "relabelled"
		}
	}
}
