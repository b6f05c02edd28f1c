package gen

import (
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// phase is where a pod is in its life, as the kubelet reports it.
type phase int

const (
	unscheduled phase = iota // Pending, no node yet
	pending                  // Pending on a node, containers being created
	running                  // Running, not ready
	ready                    // Running and ready
	succeeded
	failed
	unknown // node lost: phase Unknown
)

// acct is how far earlier syncs got in accounting a terminated pod.
type acct int

const (
	// acNew: the tracking finalizer is on and the status does not know the
	// pod yet.
	acNew acct = iota
	// acUncounted: the finalizer is on and the UID is in
	// status.uncountedTerminatedPods (the interim write happened).
	acUncounted
	// acRemoving: counted in the status, the finalizer removal was sent but
	// the informer still shows the finalizer; the UID is in the expected
	// finalizer removals.
	acRemoving
	// acCounted: counted, finalizer gone.
	acCounted
)

// owner says who controls a pod.
type owner int

const (
	ownedByJob      owner = iota
	orphan                // no controller reference; matches the Job's selector
	otherController       // controlled by some other object
	// jobUIDOtherRef: a controller reference with the Job's UID under
	// another kind or name; upstream's pod index (keyed by kind, name and
	// UID) never lists it.
	jobUIDOtherRef
)

// podPlan is the life of one pod, from which addPod makes the object.
type podPlan struct {
	index    int    // completion index, -1 for none
	rawIndex string // when set, the index annotation verbatim (malformed ones)
	phase    phase
	deleting bool // has a deletion timestamp
	acct     acct
	owner    owner

	created    time.Time
	finished   time.Time // succeeded / failed
	readySince time.Time
	deletedAt  time.Time

	exitCode       int32
	disruption     string // DisruptionTarget condition reason, when set
	restarts       int32
	failCount      *int32 // batch.kubernetes.io/job-index-failure-count
	ignoredCount   *int32 // batch.kubernetes.io/job-index-ignored-failure-count
	noFinalizer    bool   // created without the tracking finalizer
	noFinishTimes  bool   // a failed pod whose containers never ran
	missingContrSt bool   // no container statuses at all (unusual kubelet report)
}

func (p *podPlan) terminal() bool { return p.phase == succeeded || p.phase == failed }

// generateName is the prefix upstream gives the Job's pods.
func (g *G) generateName(index int) string {
	if index < 0 {
		return g.job.Name + "-"
	}
	suffix := "-" + strconv.Itoa(index) + "-"
	prefix := g.job.Name + suffix
	if len(prefix) > 58 {
		prefix = prefix[:58-len(suffix)] + suffix
	}
	return prefix
}

// podName draws a name as the API server completes a generateName, never
// one already taken in this snapshot.
func (g *G) podName(index int) string {
	for {
		name := g.generateName(index) + g.suffix(5)
		if !g.names[name] {
			if g.names == nil {
				g.names = map[string]bool{}
			}
			g.names[name] = true
			return name
		}
	}
}

// addPod makes the pod of plan p and adds it to the snapshot.
func (g *G) addPod(p *podPlan) *corev1.Pod {
	job := g.job
	tmpl := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              g.podName(p.index),
			Namespace:         job.Namespace,
			UID:               types.UID(g.uid()),
			CreationTimestamp: metav1.NewTime(p.created),
			ResourceVersion:   strconv.Itoa(g.between(1000, 900000)),
			Labels:            tmpl.Labels,
			Annotations:       tmpl.Annotations,
		},
		Spec: tmpl.Spec,
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	switch p.owner {
	case ownedByJob:
		pod.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
	case otherController:
		pod.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-" + g.suffix(5), UID: types.UID(g.uid()),
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
	case jobUIDOtherRef:
		ref := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "CronJob", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}
		if g.chance(0.5) {
			ref.Kind, ref.Name = "Job", job.Name+"-old"
		}
		pod.OwnerReferences = []metav1.OwnerReference{ref}
	}
	if g.ownerVariety {
		g.varyOwnerReferences(pod, p)
	}
	if !p.noFinalizer && p.acct != acCounted {
		pod.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
	if p.index >= 0 || p.rawIndex != "" {
		ix := p.rawIndex
		if ix == "" {
			ix = strconv.Itoa(p.index)
		}
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[batchv1.JobCompletionIndexAnnotation] = ix
		pod.Labels[batchv1.JobCompletionIndexAnnotation] = ix
		if p.index >= 0 {
			pod.Spec.Hostname = job.Name + "-" + ix
			if len(pod.Spec.Hostname) > 63 {
				pod.Spec.Hostname = pod.Spec.Hostname[:63]
			}
		}
		for i := range pod.Spec.Containers {
			pod.Spec.Containers[i].Env = append(pod.Spec.Containers[i].Env, corev1.EnvVar{
				Name: "JOB_COMPLETION_INDEX",
				ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
					APIVersion: "v1", FieldPath: "metadata.labels['" + batchv1.JobCompletionIndexAnnotation + "']",
				}},
			})
		}
	}
	if (p.failCount != nil || p.ignoredCount != nil) && pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if p.failCount != nil {
		pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(*p.failCount))
	}
	if p.ignoredCount != nil {
		pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(*p.ignoredCount))
	}
	if p.phase != unscheduled {
		pod.Spec.NodeName = "node-" + strconv.Itoa(g.between(1, 40))
	}
	if p.deleting {
		grace := int64(pick(g, 30, 30, 0, 10))
		dt := metav1.NewTime(p.deletedAt.Add(time.Duration(grace) * time.Second))
		pod.DeletionTimestamp = &dt
		pod.DeletionGracePeriodSeconds = &grace
	}
	g.fillStatus(pod, p)
	g.pods = append(g.pods, pod)
	g.plan = append(g.plan, p)
	g.want[pod] = p
	return pod
}

// fillStatus writes the status the kubelet would report for plan p.
func (g *G) fillStatus(pod *corev1.Pod, p *podPlan) {
	st := &pod.Status
	sched := p.created.Add(g.secs(0, 2))
	started := sched.Add(g.secs(1, 5))
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus, at time.Time, reason string) {
		st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: s, LastTransitionTime: metav1.NewTime(at), Reason: reason})
	}
	switch p.phase {
	case unscheduled:
		st.Phase = corev1.PodPending
		st.QOSClass = corev1.PodQOSBurstable
		cond(corev1.PodScheduled, corev1.ConditionFalse, sched, corev1.PodReasonUnschedulable)
		return
	case unknown:
		st.Phase = corev1.PodUnknown
	case pending:
		st.Phase = corev1.PodPending
	case running, ready:
		st.Phase = corev1.PodRunning
	case succeeded:
		st.Phase = corev1.PodSucceeded
	case failed:
		st.Phase = corev1.PodFailed
	}
	st.HostIP = "10.0.0." + strconv.Itoa(g.between(2, 200))
	if p.phase != pending {
		st.PodIP = "10.244." + strconv.Itoa(g.between(0, 40)) + "." + strconv.Itoa(g.between(2, 250))
		st.StartTime = ptr.To(metav1.NewTime(sched))
	}
	st.QOSClass = corev1.PodQOSBurstable

	isReady := p.phase == ready
	readyAt := p.readySince
	if readyAt.IsZero() {
		readyAt = started
	}
	if p.terminal() {
		readyAt = p.finished
	}
	cond(corev1.PodReadyToStartContainers, boolStatus(p.phase != pending), started, "")
	cond(corev1.PodInitialized, boolStatus(p.phase != pending), started, "")
	readyReason := ""
	if p.terminal() {
		readyReason = "PodCompleted"
		if p.phase == failed {
			readyReason = "PodFailed"
		}
	}
	cond(corev1.PodReady, boolStatus(isReady), readyAt, readyReason)
	cond(corev1.ContainersReady, boolStatus(isReady), readyAt, readyReason)
	cond(corev1.PodScheduled, corev1.ConditionTrue, sched, "")
	if p.disruption != "" {
		at := p.finished
		if at.IsZero() {
			at = g.now.Add(-g.secs(1, 30))
		}
		st.Conditions = append(st.Conditions, corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: p.disruption,
			Message: "pod disrupted: " + p.disruption, LastTransitionTime: metav1.NewTime(at.Add(-time.Second)),
		})
	}
	if p.missingContrSt {
		return
	}

	state := func(main bool) corev1.ContainerState {
		switch {
		case p.phase == pending || (p.phase == failed && p.noFinishTimes):
			return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
		case p.terminal():
			code, reason := int32(0), "Completed"
			if p.phase == failed && main {
				code, reason = p.exitCode, "Error"
				if code == 137 {
					reason = "OOMKilled"
				}
			}
			return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason,
				StartedAt: metav1.NewTime(started), FinishedAt: metav1.NewTime(p.finished),
			}}
		case p.phase == unknown:
			return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}
		default:
			return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}
		}
	}
	for i, c := range pod.Spec.InitContainers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:0", Ready: true}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			// The sidecar runs alongside; it stops once the pod is done.
			cs.State = state(false)
			if cs.State.Terminated != nil {
				cs.State.Terminated.ExitCode = 0
				cs.State.Terminated.Reason = "Completed"
			}
			cs.Ready = isReady
			cs.Started = ptr.To(p.phase != pending)
		} else {
			if p.phase == pending {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
			} else {
				cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 0, Reason: "Completed", StartedAt: metav1.NewTime(sched), FinishedAt: metav1.NewTime(started),
				}}
			}
		}
		_ = i
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	for i, c := range pod.Spec.Containers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:0", State: state(i == 0)}
		cs.Ready = isReady
		cs.Started = ptr.To(cs.State.Running != nil)
		if i == 0 {
			cs.RestartCount = p.restarts
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
}

func boolStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

// varyOwnerReferences gives a pod the owner references real clusters show
// beside the controller reference: none, a non-controller reference to the
// Job (controller false or unset: left by a tool, or by an earlier owner
// that was the Job), references to other objects, several at once, in any
// order.
func (g *G) varyOwnerReferences(pod *corev1.Pod, p *podPlan) {
	job := g.job
	other := func() metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: pick(g, "ConfigMap", "Service", "Secret"), Name: "aux-" + g.suffix(5), UID: types.UID(g.uid())}
	}
	jobRef := func() metav1.OwnerReference {
		r := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}
		switch g.between(0, 2) {
		case 0:
			r.Controller = ptr.To(false)
		case 1:
			r.BlockOwnerDeletion = ptr.To(true)
		}
		return r
	}
	refs := pod.OwnerReferences
	switch p.owner {
	case ownedByJob, otherController:
		if g.chance(0.2) {
			refs = append(refs, other())
		}
	case orphan:
		switch x := g.r.Float64(); {
		case x < 0.35:
		case x < 0.7:
			refs = append(refs, jobRef())
		case x < 0.8:
			refs = append(refs, other())
		default:
			refs = append(refs, other(), jobRef())
		}
	}
	if len(refs) > 1 && g.chance(0.5) {
		refs[0], refs[len(refs)-1] = refs[len(refs)-1], refs[0]
	}
	pod.OwnerReferences = refs
}
