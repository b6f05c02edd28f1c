package interaction

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
			var lowered string
			if p.DeletionTimestamp != nil {
				lowered = w.observeDeletion(p, false)
			} else if w.controlled(p) {
				if w.exp.Creations > 0 {
					lowered = "a creation"
				}
				w.exp = w.exp.CreationObserved()
			}
			out.add("%s (new)%s", describePod(p, w.finalizer()), observedSuffix(lowered))
		case old.ResourceVersion != p.ResourceVersion:
			w.viewPods[n] = p
			var lowered string
			if p.DeletionTimestamp != nil {
				lowered = w.observeDeletion(p, false)
			} else if w.controlled(p) && !hasFinalizer(p, w.finalizer()) && w.exp.ExpectsFinalizerRemoval(p.UID) {
				w.exp = w.exp.FinalizerRemovalObserved(p.UID)
				lowered = "a finalizer removal"
			}
			out.add("%s%s", describePod(p, w.finalizer()), observedSuffix(lowered))
		}
	}
	for _, n := range sortedNames(w.viewPods) {
		if p, ok := w.pods[n]; ok && p.UID == w.viewPods[n].UID {
			continue
		}
		p := w.viewPods[n]
		delete(w.viewPods, n)
		out.add("%s: gone%s", n, observedSuffix(w.observeDeletion(p, true)))
	}
	if len(*out) == 0 {
		out.add("nothing new")
	}
	if describeMemory(before, w.backoff, nil) != describeMemory(w.exp, w.backoff, nil) {
		out.add("memory: %s", describeMemory(w.exp, w.backoff, w.uidNames()))
	}
	return nil
}

// observeDeletion lowers the expectations for a pod seen being deleted
// (gone, when final) and says what it lowered.
func (w *World) observeDeletion(p *corev1.Pod, final bool) string {
	if !w.controlled(p) || finished(w.viewJob) {
		return ""
	}
	var lowered []string
	if w.exp.Deletions > 0 {
		lowered = append(lowered, "a deletion")
	}
	w.exp = w.exp.DeletionObserved()
	if (final || !hasFinalizer(p, w.finalizer())) && w.exp.ExpectsFinalizerRemoval(p.UID) {
		w.exp = w.exp.FinalizerRemovalObserved(p.UID)
		lowered = append(lowered, "a finalizer removal")
	}
	return strings.Join(lowered, " and ")
}

func observedSuffix(lowered string) string {
	if lowered == "" {
		return ""
	}
	return fmt.Sprintf(" (observed %s)", lowered)
}
