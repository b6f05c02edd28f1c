package harness

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
)

// Report renders a verdict for people: the verdict, the diff, the API
// server's objections, upstream's calls, and the snapshot as YAML.
func Report(v Verdict, fullPods, outcomes bool) (string, error) {
	var b strings.Builder
	c := v.Case
	status := "AGREE"
	switch {
	case !v.OK():
		status = "MISMATCH: " + v.Class()
	case v.SharedInvalid():
		status = "AGREE, but both write a status the API server rejects"
	}
	fmt.Fprintf(&b, "# family %s, seed %d: %s\n", c.Family, c.Seed, status)
	if v.Setup != "" {
		fmt.Fprintf(&b, "\n## upstream driver could not run the case\n%s\n", v.Setup)
	}
	if v.Panic != "" {
		fmt.Fprintf(&b, "\n## jobsync.Reconcile panicked\n%s\n", v.Panic)
	}
	if v.Settled != "" {
		fmt.Fprintf(&b, "\n## the library with its settled pods left out\n%s\n", v.Settled)
	}
	if v.Held != "" {
		fmt.Fprintf(&b, "\n## the library with its active pods held in an ActivePods\n%s\n", v.Held)
	}
	if v.Diff != "" {
		fmt.Fprintf(&b, "\n## diff (-upstream +library)\n%s", v.Diff)
	}
	if len(v.Invalid) > 0 {
		fmt.Fprintf(&b, "\n## the API server rejects the plan's status\n")
		for _, e := range v.Invalid {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	if len(v.UpstreamInvalid) > 0 {
		fmt.Fprintf(&b, "\n## (the API server also rejects upstream's own status)\n")
		for _, e := range v.UpstreamInvalid {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	if len(v.UpstreamLog) > 0 {
		fmt.Fprintf(&b, "\n## upstream's calls, in order\n")
		for _, l := range v.UpstreamLog {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if outcomes {
		for _, o := range []struct {
			name string
			o    Outcome
		}{{"upstream", v.Upstream}, {"library", v.Library}} {
			y, err := yaml.Marshal(o.o)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\n## %s outcome (normalised)\n%s", o.name, y)
		}
	}
	snap, err := scenarioYAML(v, fullPods)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n## snapshot (scenario file shape)\n%s", snap)
	return b.String(), nil
}

// scenarioDoc is the input half of the library's scenario files, with room
// for full pods beside the shorthand (scenario.Pod) and for options the
// library's scenario files do not take.
type scenarioDoc struct {
	Description  string                    `json:"description"`
	Now          metav1.Time               `json:"now"`
	Options      map[string]any            `json:"options,omitempty"`
	Job          *batchv1.Job              `json:"job"`
	Pods         []any                     `json:"pods,omitempty"`
	Expectations expectations.Expectations `json:"expectations,omitempty"`
	Backoff      backoff.Record            `json:"backoff,omitempty"`
}

func scenarioYAML(v Verdict, fullPods bool) (string, error) {
	c := v.Case
	s := c.Snapshot
	sc := scenarioDoc{
		Description:  fmt.Sprintf("conformance %s seed %d: %s", c.Family, c.Seed, v.Class()),
		Now:          metav1.NewTime(s.Now),
		Job:          s.Job,
		Expectations: s.Expectations,
		Backoff:      s.Backoff,
	}
	if c.Options.KeepStartTimeOnSuspend {
		sc.Options = map[string]any{"keepStartTimeOnSuspend": true}
	}
	lossy := false
	for _, p := range s.Pods {
		if fullPods {
			sc.Pods = append(sc.Pods, p)
			continue
		}
		sp, exact := shorten(s.Job, p)
		lossy = lossy || !exact
		sc.Pods = append(sc.Pods, sp)
	}
	y, err := yaml.Marshal(sc)
	if err != nil {
		return "", err
	}
	out := string(y)
	if lossy {
		out = "# the pod shorthand leaves out details (ready and start times, sidecars, grace periods);\n# rerun with -full for the exact pods.\n" + out
	}
	return out, nil
}

// shorten writes p in the scenario shorthand; exact is false when the
// shorthand cannot say everything about p that may matter.
func shorten(job *batchv1.Job, p *corev1.Pod) (scenario.Pod, bool) {
	exact := len(p.Spec.InitContainers) == 0 && len(p.Spec.Containers) == 1
	sp := scenario.Pod{
		Name: p.Name, UID: string(p.UID), Phase: p.Status.Phase, Node: p.Spec.NodeName,
		Created: &p.CreationTimestamp, Deleted: p.DeletionTimestamp,
		NoFinalizer: !hasTrackingFinalizer(p),
	}
	if v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		if i, err := strconv.Atoi(v); err == nil && i >= 0 {
			sp.Index = &i
		} else {
			sp.IndexText = v
		}
	}
	for _, cond := range p.Status.Conditions {
		switch cond.Type {
		case corev1.PodReady:
			sp.Ready = cond.Status == corev1.ConditionTrue
			if sp.Ready && !cond.LastTransitionTime.Equal(&p.CreationTimestamp) {
				exact = false
			}
		case corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReadyToStartContainers:
		default:
			if cond.Status == corev1.ConditionTrue {
				sp.Conditions = append(sp.Conditions, string(cond.Type))
			}
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		sp.Restarts += cs.RestartCount
		if t := cs.State.Terminated; t != nil && (sp.Finished == nil || t.ExitCode != 0) {
			sp.Finished = &t.FinishedAt
			sp.ExitCode = t.ExitCode
			if cs.Name != "main" {
				sp.Container = cs.Name
			}
		}
	}
	for k, v := range p.Annotations {
		if k == batchv1.JobCompletionIndexAnnotation || job.Spec.Template.Annotations[k] == v {
			continue
		}
		if sp.Annotations == nil {
			sp.Annotations = map[string]string{}
		}
		sp.Annotations[k] = v
	}
	switch ref := metav1.GetControllerOf(p); {
	case len(p.OwnerReferences) > 1 || (ref != nil && ref.UID == job.UID && (ref.Kind != "Job" || ref.Name != job.Name)) ||
		(ref == nil && len(p.OwnerReferences) == 1):
		for _, r := range p.OwnerReferences {
			or := scenario.OwnerRef{Controller: r.Controller}
			if r.Kind != "Job" {
				or.Kind = r.Kind
			}
			if r.Name != job.Name {
				or.Name = r.Name
			}
			if r.UID != job.UID {
				or.UID = string(r.UID)
			}
			sp.OwnerRefs = append(sp.OwnerRefs, or)
		}
	case ref == nil:
		sp.Owner = "none"
	case ref.UID != job.UID:
		sp.Owner = string(ref.UID)
	}
	want := map[string]string{}
	for k, v := range job.Spec.Template.Labels {
		want[k] = v
	}
	if v, ok := p.Labels[batchv1.JobCompletionIndexAnnotation]; ok {
		want[batchv1.JobCompletionIndexAnnotation] = v
	}
	if !equalMaps(want, p.Labels) {
		sp.Labels = p.Labels
	}
	return sp, exact
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
