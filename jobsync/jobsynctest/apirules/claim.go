package apirules

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// ApplyClaim carries an adoption or a release out on a copy of the pod as
// the API server applies the claim's strategic merge patch (owner
// references merge by UID, finalizers by value), from the claim's
// structured form. An adoption puts the Job's controller reference in place
// of any reference with the Job's UID and adds the tracking finalizer; a
// release drops every reference with the Job's UID and the finalizer. A
// claim for another pod of the same name is refused, as metadata.uid in the
// patch makes the API server refuse it.
func ApplyClaim(p *corev1.Pod, claim jobsync.PodClaim, adopt bool) (*corev1.Pod, error) {
	if claim.Pod.UID != p.UID {
		return nil, fmt.Errorf("claim for pod %s: uid %s does not match %s", p.Name, claim.Pod.UID, p.UID)
	}
	out := p.DeepCopy()
	owner := claim.OwnerReference.UID
	if adopt {
		i := slices.IndexFunc(out.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == owner })
		if i >= 0 {
			out.OwnerReferences[i] = *claim.OwnerReference.DeepCopy()
		} else {
			out.OwnerReferences = append(out.OwnerReferences, *claim.OwnerReference.DeepCopy())
		}
		if !slices.Contains(out.Finalizers, claim.Finalizer) {
			out.Finalizers = append(out.Finalizers, claim.Finalizer)
		}
		return out, nil
	}
	out.OwnerReferences = slices.DeleteFunc(out.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == owner })
	out.Finalizers = slices.DeleteFunc(out.Finalizers, func(f string) bool { return f == claim.Finalizer })
	return out, nil
}
