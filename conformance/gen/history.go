package gen

import (
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

// history holds the knobs of the past that families turn before the pods
// are made: when pods were created, how far their accounting got, what
// the status and the controller's memory remember.
type history struct {
	start      time.Time   // status.startTime (zero: never started)
	waves      []time.Time // instants at which earlier syncs created pods
	acctWeight [4]int      // weights of acNew, acUncounted, acRemoving, acCounted
	ghostSucc  int         // succeeded pods counted and long gone
	ghostFail  int         // failed pods counted and long gone
	ghostIdx   []int       // completed indexes whose pods are gone
	ghostFIdx  []int       // failed indexes whose pods are gone
	staleCount float64     // chance that active/ready/terminating lag behind
	memory     memoryMode
}

type memoryMode int

const (
	memoryConsistent memoryMode = iota // expectations and backoff from the history
	memoryLost                         // the controller restarted: nothing remembered
)

// begin sets the history defaults: the Job started a few seconds after its
// creation (unless suspended from the start), pods created in a few waves.
func (g *G) begin() *history {
	h := &history{acctWeight: [4]int{35, 15, 10, 40}, staleCount: 0.25}
	created := g.job.CreationTimestamp.Time
	h.start = created.Add(g.secs(0, 3))
	span := g.now.Sub(h.start)
	for range g.between(1, 4) {
		h.waves = append(h.waves, h.start.Add(time.Duration(g.r.Int64N(int64(span/time.Second)))*time.Second))
	}
	slices.SortFunc(h.waves, func(a, b time.Time) int { return a.Compare(b) })
	g.h = h
	return h
}

// createdAt picks a creation instant: mostly one of the waves (pods created
// in one sync share their second), sometimes a moment of its own.
func (g *G) createdAt() time.Time {
	h := g.h
	if g.chance(0.6) && len(h.waves) > 0 {
		return pick(g, h.waves...)
	}
	span := max(g.now.Sub(h.start)-time.Second, time.Second)
	return h.start.Add(time.Duration(g.r.Int64N(int64(span/time.Second))) * time.Second)
}

func (g *G) pickAcct() acct {
	w := g.h.acctWeight
	n := g.r.IntN(w[0] + w[1] + w[2] + w[3])
	for i, x := range w {
		if n < x {
			return acct(i)
		}
		n -= x
	}
	return acNew
}

// pod adds one pod of the Job in phase ph at completion index ix (-1 for
// none), with times drawn from the history, and returns its plan for
// further tweaks before build.
func (g *G) pod(ix int, ph phase) *podPlan {
	p := &podPlan{index: ix, phase: ph, created: g.createdAt()}
	age := g.now.Sub(p.created)
	if age < 2*time.Second {
		p.created = g.now.Add(-2 * time.Second)
		age = 2 * time.Second
	}
	switch ph {
	case ready:
		p.readySince = p.created.Add(time.Duration(g.r.Int64N(int64(age/time.Second))) * time.Second)
	case succeeded, failed:
		p.finished = p.created.Add(time.Duration(1+g.r.Int64N(int64(age/time.Second)-1)) * time.Second)
		p.acct = g.pickAcct()
		if ph == failed {
			p.exitCode = pick(g, int32(1), 1, 2, 42, 137, 143)
		}
	}
	g.pending = append(g.pending, p)
	return p
}

// terminating adds a pod that is being deleted (graceful deletion not
// over yet) in phase ph.
func (g *G) terminating(ix int, ph phase) *podPlan {
	p := g.pod(ix, ph)
	p.deleting = true
	p.deletedAt = g.now.Add(-g.secs(0, 40))
	if p.deletedAt.Before(p.created) {
		p.deletedAt = p.created
	}
	if p.terminal() && p.finished.After(p.deletedAt) {
		p.finished = p.deletedAt
	}
	if !p.terminal() {
		p.acct = g.pickAcct()
	}
	return p
}

// build makes the pods of the plans, then the status and memory that the
// history implies. Families adjust the status (conditions, staleness)
// afterwards.
func (g *G) build() {
	h := g.h
	job := g.job
	st := &job.Status
	if !h.start.IsZero() {
		g.setStartTime(h.start)
	}
	// Shuffle so that the order of the pods says nothing.
	g.r.Shuffle(len(g.pending), func(i, j int) { g.pending[i], g.pending[j] = g.pending[j], g.pending[i] })
	var completed, failedIdx []int
	var uncS, uncF []types.UID
	var active, readyN, term int32
	indexed := g.indexed()
	completions := int(ptr.Deref(job.Spec.Completions, 0))
	for _, p := range g.pending {
		if indexed && p.phase == succeeded && p.acct == acUncounted {
			// Indexed Jobs record succeeded pods by index, never by UID.
			p.acct = acNew
		}
		pod := g.addPod(p)
		if p.owner != ownedByJob {
			continue
		}
		failedKind := p.phase == failed || (p.deleting && p.phase != succeeded && g.deletedCountsAsFailed())
		switch {
		case !p.terminal() && !p.deleting:
			active++
			if p.phase == ready {
				readyN++
			}
		case p.deleting && !p.terminal():
			term++
		}
		if !(p.phase == succeeded || failedKind) || p.noFinalizer && p.acct == acNew {
			continue
		}
		switch p.acct {
		case acNew:
			continue
		case acUncounted:
			if p.phase == succeeded {
				uncS = append(uncS, pod.UID)
			} else {
				uncF = append(uncF, pod.UID)
			}
			continue
		case acRemoving:
			g.exp = g.exp.ExpectFinalizerRemovals(pod.UID)
		}
		// Counted.
		if p.phase == succeeded {
			if indexed {
				if p.index >= 0 && p.index < completions {
					completed = append(completed, p.index)
				}
			} else {
				st.Succeeded++
			}
			continue
		}
		st.Failed++
		if job.Spec.BackoffLimitPerIndex != nil && p.index >= 0 && p.index < completions && ptr.Deref(p.failCount, 0) >= *job.Spec.BackoffLimitPerIndex {
			failedIdx = append(failedIdx, p.index)
		}
	}
	st.Succeeded += int32(h.ghostSucc)
	st.Failed += int32(h.ghostFail)
	if indexed {
		completed = append(completed, h.ghostIdx...)
		set := indexSet(completed, completions)
		st.CompletedIndexes = formatIndexes(set)
		st.Succeeded = int32(len(set))
		if job.Spec.BackoffLimitPerIndex != nil {
			failedIdx = append(failedIdx, h.ghostFIdx...)
			fset := indexSet(failedIdx, completions)
			fset = slices.DeleteFunc(fset, func(i int) bool { return slices.Contains(set, i) })
			st.FailedIndexes = ptr.To(formatIndexes(fset))
		}
	}
	if len(uncS)+len(uncF) > 0 || g.chance(0.7) {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: uncS, Failed: uncF}
	}
	st.Active, st.Ready, st.Terminating = active, ptr.To(readyN), ptr.To(term)
	if g.chance(h.staleCount) {
		st.Active = max(0, active+int32(g.between(-2, 2)))
		st.Ready = ptr.To(min(st.Active, max(0, readyN+int32(g.between(-2, 1)))))
		st.Terminating = ptr.To(max(0, term+int32(g.between(-1, 1))))
	}
	if g.chance(0.05) {
		// A status last written before the controller tracked these.
		st.Ready, st.Terminating = nil, nil
	}
	g.memory()
}

// deletedCountsAsFailed is upstream's rule for pods that are deleted
// before they finish: failures, unless only Failed pods are replaced.
func (g *G) deletedCountsAsFailed() bool {
	s := g.job.Spec
	if s.PodFailurePolicy != nil {
		return false
	}
	return s.PodReplacementPolicy == nil || *s.PodReplacementPolicy != batchv1.Failed
}

// memory makes the controller's expectations and backoff record: what an
// earlier sync left, sometimes lost to a restart, sometimes with creations
// or deletions still unobserved.
func (g *G) memory() {
	if g.h.memory == memoryLost {
		g.exp.FinalizerRemovals = expectations.UIDSet{}
		g.bo = &backoff.Record{}
		return
	}
	// Keep the age of pending expectations clear of the 5-minute edge
	// (upstream measures it with the real clock).
	age := func() time.Duration {
		if g.chance(0.5) {
			return g.secs(0, 280)
		}
		return g.secs(310, 1800)
	}
	switch x := g.r.Float64(); {
	case x < 0.10:
		g.exp.Creations = int64(g.between(1, 3))
		g.exp.SetAt = g.now.Add(-age())
	case x < 0.16:
		g.exp.Deletions = int64(g.between(1, 3))
		g.exp.SetAt = g.now.Add(-age())
	case x < 0.20:
		// Everything observed; the record stays behind.
		g.exp.SetAt = g.now.Add(-age())
	}
	if g.chance(0.04) {
		// A removal seen by the API server but whose pod is gone from the view.
		g.exp = g.exp.ExpectFinalizerRemovals(types.UID(g.uid()))
	}
}

// backoffRecord returns the backoff the controller remembers: unless a
// family set one, the failures it has seen (pods accounted in the status)
// after the last success it has seen.
func (g *G) backoffRecord() backoff.Record {
	if g.bo != nil {
		return *g.bo
	}
	var lastSuccess time.Time
	for _, p := range g.plan {
		if p.owner == ownedByJob && p.phase == succeeded && p.acct != acNew && p.finished.After(lastSuccess) {
			lastSuccess = p.finished
		}
	}
	var r backoff.Record
	if lastSuccess.IsZero() && g.h != nil {
		r.FailuresAfterLastSuccess = int32(g.h.ghostFail)
	}
	for _, p := range g.plan {
		if p.owner != ownedByJob || p.phase != failed || p.acct == acNew || !p.finished.After(lastSuccess) {
			continue
		}
		r.FailuresAfterLastSuccess++
		if r.LastFailureTime == nil || p.finished.After(*r.LastFailureTime) {
			t := p.finished
			r.LastFailureTime = &t
		}
	}
	if r.FailuresAfterLastSuccess > 0 && r.LastFailureTime == nil {
		t := g.now.Add(-g.secs(30, 3000))
		r.LastFailureTime = &t
	}
	return r
}

func indexSet(ixs []int, completions int) []int {
	var out []int
	for _, i := range ixs {
		if i >= 0 && i < completions {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// formatIndexes prints sorted indexes as the API does: "1,3-5,7", pairs as
// "1,2".
func formatIndexes(ixs []int) string {
	var b strings.Builder
	for i := 0; i < len(ixs); {
		j := i
		for j+1 < len(ixs) && ixs[j+1] == ixs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ixs[i]))
		switch {
		case j == i+1:
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(ixs[j]))
		case j > i+1:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ixs[j]))
		}
		i = j + 1
	}
	return b.String()
}
