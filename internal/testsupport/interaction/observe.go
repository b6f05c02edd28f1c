package interaction

import (
	"fmt"
	"strings"

	"github.com/jobsync/jobsync/jobsync"
)

// observe: the informer catches up with the API server. Each change it
// delivers lowers the controller's expectations as upstream's event
// handlers do: a new pod of the Job is an observed creation; a pod seen
// being deleted, or gone, is an observed deletion (unless the Job is
// finished), and, without its tracking finalizer, an observed finalizer
// removal; a pod of the Job seen without the finalizer is an observed
// finalizer removal. The output lists each change and what it lowered.
//
// "observe job" and "observe pods" deliver one watch only, as when the
// other stalls.
func (w *World) observe(d Directive, out *lines) error {
	words := d.Words()
	job, pods := true, true
	switch {
	case len(words) == 0:
	case len(words) == 1 && words[0] == "job":
		pods = false
	case len(words) == 1 && words[0] == "pods":
		job = false
	default:
		return fmt.Errorf("want observe, observe job or observe pods")
	}
	if job && w.viewJob.ResourceVersion != w.job.ResourceVersion {
		w.viewJob = w.job
		out.add("job: the view catches up (resourceVersion %s)", w.job.ResourceVersion)
	}
	before := w.exp
	if !pods {
		if len(*out) == 0 {
			out.add("nothing new")
		}
		return nil
	}
	for _, n := range sortedNames(w.pods) {
		p, old := w.pods[n], w.viewPods[n]
		switch {
		case old == nil:
			w.viewPods[n] = p
			out.add("%s (new)%s", describePod(p, w.finalizer()), observedSuffix(w.lower(jobsync.PodEvent{Pod: p})))
		case old.ResourceVersion != p.ResourceVersion:
			w.viewPods[n] = p
			out.add("%s%s", describePod(p, w.finalizer()), observedSuffix(w.lower(jobsync.PodEvent{Old: old, Pod: p})))
		}
	}
	for _, n := range sortedNames(w.viewPods) {
		if p, ok := w.pods[n]; ok && p.UID == w.viewPods[n].UID {
			continue
		}
		p := w.viewPods[n]
		delete(w.viewPods, n)
		out.add("%s: gone%s", n, observedSuffix(w.lower(jobsync.PodEvent{Pod: p, Deleted: true})))
	}
	if len(*out) == 0 {
		out.add("nothing new")
	}
	if describeMemory(before, w.backoff, nil) != describeMemory(w.exp, w.backoff, nil) {
		out.add("memory: %s", describeMemory(w.exp, w.backoff, w.uidNames()))
	}
	return nil
}

// lower lowers the expectations by what the library says ev lowers
// (jobsync.Observe) and says what it lowered that was expected.
func (w *World) lower(ev jobsync.PodEvent) string {
	o := jobsync.Observe(w.viewJob, ev, w.opts)
	var lowered []string
	if o.Creations > 0 && w.exp.Creations > 0 {
		lowered = append(lowered, "a creation")
	}
	if o.Deletions > 0 && w.exp.Deletions > 0 {
		lowered = append(lowered, "a deletion")
	}
	for _, u := range o.FinalizerRemovals {
		if w.exp.ExpectsFinalizerRemoval(u) {
			lowered = append(lowered, "a finalizer removal")
		}
	}
	w.exp = o.Lower(w.exp)
	return strings.Join(lowered, " and ")
}

func observedSuffix(lowered string) string {
	if lowered == "" {
		return ""
	}
	return fmt.Sprintf(" (observed %s)", lowered)
}
