package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// isJobRef reports whether a controller reference names the Job: its UID,
// the owner kind (Options.Owner, resolved by withDefaults: Job unless set)
// and the Job's name. Upstream lists a Job's pods from an informer index
// keyed by the controller reference's kind, name and UID, so a pod whose
// controller reference carries the Job's UID under another kind or name is
// never listed: neither the Job's pod nor an orphan, it is left alone. The
// apiVersion is not compared, as upstream does not compare it: a kind
// served at several versions owns its pods whichever version wrote them.
func isJobRef(ref *metav1.OwnerReference, job *batchv1.Job, ownerKind string) bool {
	return ref.UID == job.UID && ref.Kind == ownerKind && ref.Name == job.Name
}

// refersTo reports whether any owner reference of the pod, controller or
// not, carries the Job's UID. Upstream takes such a pod as one it did not
// adopt in this sync, so the adoption's finalizer is not assumed on it:
// an orphan with a non-controller reference to the Job is adopted, but
// tracked only from the next sync.
func refersTo(p *corev1.Pod, job *batchv1.Job) bool {
	for i := range p.OwnerReferences {
		if p.OwnerReferences[i].UID == job.UID {
			return true
		}
	}
	return false
}

// controllerOf returns the pod's controller owner reference (the first one
// marked as controller), or nil: metav1.GetControllerOfNoCopy without the
// interface call, for the one loop that visits every pod.
func controllerOf(p *corev1.Pod) *metav1.OwnerReference {
	refs := p.OwnerReferences
	for i := range refs {
		if c := refs[i].Controller; c != nil && *c {
			return &refs[i]
		}
	}
	return nil
}

// isAdopted reports whether a pod the Job keeps is an orphan it adopts in
// this sync: the Job's own pods carry its controller reference, adopted ones
// carry none until the adoption is carried out.
func isAdopted(p *corev1.Pod) bool { return controllerOf(p) == nil }

// sameJob reports whether a caller's set made for Job made serves job: the
// same UID and namespace, and the same completion mode and presence of a
// pod failure policy (which decide what the sets take; the API server
// changes neither). A set made for no Job serves none.
func sameJob(made, job *batchv1.Job) bool {
	return made != nil && made.UID == job.UID && made.Namespace == job.Namespace &&
		isIndexed(made) == isIndexed(job) && (made.Spec.PodFailurePolicy == nil) == (job.Spec.PodFailurePolicy == nil)
}

// uidOf is the Job's UID, empty for no Job.
func uidOf(job *batchv1.Job) types.UID {
	if job == nil {
		return ""
	}
	return job.UID
}
