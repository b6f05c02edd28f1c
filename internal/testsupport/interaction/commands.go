package interaction

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The commands that set the scene and change the world between syncs.

// createJob: "job" with a batchv1.Job in YAML as input. The Job gets what
// the API server would give it (name, UID, selector, labels, defaults) and
// the informer sees it at once.
func (w *World) createJob(d Directive, out *lines) error {
	if w.job != nil {
		return fmt.Errorf("a file holds one Job")
	}
	var in batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(d.Input), &in); err != nil {
		return fmt.Errorf("reading the Job: %w", err)
	}
	job := jobspec.Default(scenario.Job(in))
	job.CreationTimestamp = metav1.NewTime(Epoch)
	job.ResourceVersion = w.nextRV()
	w.job, w.viewJob = job, job
	s := job.Spec
	desc := fmt.Sprintf("%s: %s", job.Name, *s.CompletionMode)
	if s.Completions != nil {
		desc += fmt.Sprintf(", completions %d", *s.Completions)
	} else {
		desc += ", no completions (work queue)"
	}
	desc += fmt.Sprintf(", parallelism %d, backoffLimit %d", *s.Parallelism, *s.BackoffLimit)
	if s.BackoffLimitPerIndex != nil {
		desc += fmt.Sprintf(", backoffLimitPerIndex %d", *s.BackoffLimitPerIndex)
	}
	if s.MaxFailedIndexes != nil {
		desc += fmt.Sprintf(", maxFailedIndexes %d", *s.MaxFailedIndexes)
	}
	if s.ActiveDeadlineSeconds != nil {
		desc += fmt.Sprintf(", activeDeadlineSeconds %d", *s.ActiveDeadlineSeconds)
	}
	desc += fmt.Sprintf(", podReplacementPolicy %s", *s.PodReplacementPolicy)
	if *s.Suspend {
		desc += ", suspended"
	}
	out.add("%s", desc)
	return nil
}

// addPods: "pods" with a list of scenario pod shorthands in YAML as input:
// pods that exist already, seen by the informer.
func (w *World) addPods(d Directive, out *lines) error {
	var in []scenario.Pod
	if err := yaml.UnmarshalStrict([]byte(d.Input), &in); err != nil {
		return fmt.Errorf("reading the pods: %w", err)
	}
	for _, ps := range in {
		if _, taken := w.pods[ps.Name]; taken {
			return fmt.Errorf("pod %s exists", ps.Name)
		}
		p := scenario.PodFor(w.job, ps, w.finalizer())
		w.storePod(p)
		w.viewPods[p.Name] = p
		out.add("%s", describePod(p, w.finalizer()))
	}
	return nil
}

// tick: "tick 30s" moves the clock.
func (w *World) tick(d Directive, out *lines) error {
	words := d.Words()
	if len(words) != 1 {
		return fmt.Errorf("want one duration, as in tick 30s")
	}
	dur, err := time.ParseDuration(words[0])
	if err != nil || dur <= 0 {
		return fmt.Errorf("want a positive duration, got %q", words[0])
	}
	w.now = w.now.Add(dur)
	out.add("now %s", at(w.now))
	return nil
}

// changePods: what kubelets and other actors do to pods.
//
//	start POD... [ready=false]       the pod runs (and is ready unless ready=false)
//	succeed POD...                   its container exits with 0
//	fail POD... [exit=N]             its container exits with N (default 1)
//	disrupt POD... [reason=R]        DisruptionTarget condition, then the pod fails
//	delete POD...                    someone deletes it (apirules.Delete)
func (w *World) changePods(d Directive, out *lines) error {
	names := d.Words()
	if len(names) == 0 {
		return fmt.Errorf("name the pods")
	}
	for _, name := range names {
		old, ok := w.pods[name]
		if !ok {
			return fmt.Errorf("no pod %s in the API server", name)
		}
		p := old.DeepCopy()
		if err := w.changePod(d, p); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if podlife.KubeletDeletes(p) {
			// The kubelet's last call on a pod that stopped while being
			// deleted, stored with the change that stopped it.
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, ptr(int64(0)), w.now)
		}
		w.storePod(p)
		if _, still := w.pods[name]; still {
			out.add("%s", describePod(p, w.finalizer()))
		} else {
			out.add("%s: gone from the API server", name)
		}
	}
	return nil
}

func (w *World) changePod(d Directive, p *corev1.Pod) error {
	now := metav1.NewTime(w.now)
	container := podlife.ExitingContainer("", &p.Spec)
	// terminate ends the pod's containers as the kubelet reports it: the
	// first exits with exit, the others with 0. The command says the pod
	// ran, even one the file never started.
	terminate := func(exit int32) error {
		if podlife.IsTerminal(p) {
			return fmt.Errorf("already %s", p.Status.Phase)
		}
		if len(p.Status.ContainerStatuses) == 0 {
			for _, c := range p.Spec.Containers {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image})
			}
		}
		p.Status.Phase = podlife.Terminate(p.Status.ContainerStatuses, true, func(name string) int32 {
			if name == container {
				return exit
			}
			return 0
		}, w.now)
		setReady(p, false, now)
		return nil
	}
	switch d.Command {
	case "start":
		if p.Status.Phase != corev1.PodPending && p.Status.Phase != "" {
			return fmt.Errorf("not pending but %s", p.Status.Phase)
		}
		p.Status.Phase = corev1.PodRunning
		p.Spec.NodeName = "node-1"
		p.Status.InitContainerStatuses, p.Status.ContainerStatuses = podlife.Running(&p.Spec, w.now)
		ready := true
		if v, ok := d.Arg("ready"); ok {
			ready = v != "false"
		}
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].Ready = ready
		}
		setReady(p, ready, now)
		return nil
	case "succeed":
		return terminate(0)
	case "fail":
		exit := int32(1)
		if v, ok := d.Arg("exit"); ok {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("exit=%q: %w", v, err)
			}
			exit = int32(n)
		}
		if exit == 0 {
			return fmt.Errorf("exit=0 is a success: use succeed")
		}
		return terminate(exit)
	case "disrupt":
		reason := "EvictionByEvictionAPI"
		if v, ok := d.Arg("reason"); ok {
			reason = v
		}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: now,
		})
		if p.DeletionTimestamp == nil {
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, nil, w.now)
		}
		return terminate(podlife.ExitKilled)
	case "delete":
		if p.DeletionTimestamp != nil {
			return fmt.Errorf("already being deleted")
		}
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, nil, w.now)
		return nil
	}
	return fmt.Errorf("unknown pod change")
}

func setReady(p *corev1.Pod, ready bool, now metav1.Time) {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			if c.Status != status {
				p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = status, now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status, LastTransitionTime: now})
}

// changeJob: what users do to the Job's spec.
//
//	suspend | resume | scale parallelism=N [completions=M]
func (w *World) changeJob(d Directive, out *lines) error {
	j := w.job.DeepCopy()
	switch d.Command {
	case "suspend":
		j.Spec.Suspend = ptr(true)
	case "resume":
		j.Spec.Suspend = ptr(false)
	case "scale":
		for _, field := range []struct {
			key string
			to  **int32
		}{{"parallelism", &j.Spec.Parallelism}, {"completions", &j.Spec.Completions}} {
			if v, ok := d.Arg(field.key); ok {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil {
					return fmt.Errorf("%s=%q: %w", field.key, v, err)
				}
				*field.to = ptr(int32(n))
			}
		}
	}
	j.Generation++
	j.ResourceVersion = w.nextRV()
	w.job = j
	desc := fmt.Sprintf("suspend %t", *j.Spec.Suspend)
	if d.Command == "scale" {
		desc = fmt.Sprintf("parallelism %d", *j.Spec.Parallelism)
		if j.Spec.Completions != nil {
			desc += fmt.Sprintf(", completions %d", *j.Spec.Completions)
		}
	}
	out.add("%s (the informer has not seen it yet)", desc)
	return nil
}

// restart: the controller process restarts. Its memory (expectations,
// backoff) is lost and its informers list everything afresh, lowering
// nothing.
func (w *World) restart(out *lines) {
	w.exp, w.backoff = expectations.Expectations{}, backoff.Record{}
	w.viewJob = w.job
	w.viewPods = map[string]*corev1.Pod{}
	for n, p := range w.pods {
		w.viewPods[n] = p
	}
	out.add("memory lost; the informer lists the Job and %d pods", len(w.viewPods))
}

// show: the API server's objects and the controller's memory.
func (w *World) show(out *lines) {
	uids := w.uidNames()
	out.add("job %s", describeStatus(&w.job.Status, uids))
	for _, c := range describeConditions(w.job.Status.Conditions) {
		out.add("  %s", c)
	}
	for _, n := range sortedNames(w.pods) {
		p := w.pods[n]
		s := describePod(p, w.finalizer())
		if v, ok := w.viewPods[n]; !ok || v.ResourceVersion != p.ResourceVersion {
			s += " (not yet observed)"
		}
		out.add("%s", s)
	}
	for _, n := range sortedNames(w.viewPods) {
		if _, ok := w.pods[n]; !ok {
			out.add("%s: gone (not yet observed)", n)
		}
	}
	out.add("memory: %s", describeMemory(w.exp, w.backoff, uids))
}

// describePod is one line about a pod: "name: phase, readiness, exit
// code, index, deletion, finalizer".
func describePod(p *corev1.Pod, finalizer string) string {
	parts := []string{p.Name + ":", string(p.Status.Phase)}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			parts = append(parts, "ready")
		}
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			parts = append(parts, "disrupted("+c.Reason+")")
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			parts = append(parts, fmt.Sprintf("exit=%d", t.ExitCode))
		}
	}
	if ix, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		parts = append(parts, "index="+ix)
	}
	if p.DeletionTimestamp != nil {
		parts = append(parts, "deleted"+at(p.DeletionTimestamp.Time))
	}
	if podlife.HasFinalizer(p, finalizer) {
		parts = append(parts, "finalizer")
	}
	if metav1.GetControllerOfNoCopy(p) == nil {
		parts = append(parts, "orphan")
	}
	return strings.Join(parts, " ")
}
