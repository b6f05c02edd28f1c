package workload136

import (
	"fmt"
	"hash/fnv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/jobsync/jobsync/jobsync"
)

// This file holds upstream's rules for a gang Job's Workload and PodGroup:
// which objects are the Job's, when new ones are created, and when the Job
// falls back to default scheduling.

// decision is what decide found: the objects to create, the event and the
// note to add to the plan, and the PodGroup the Job's new pods join.
type decision struct {
	workload *schedulingv1alpha2.Workload
	podGroup *schedulingv1alpha2.PodGroup
	event    *jobsync.Event
	note     string
	group    string
}

// gangCandidate reports whether a Job qualifies for gang scheduling: an
// Indexed Job whose parallelism, above 1, equals its completions, and whose
// pod template names no scheduling group of its own.
func gangCandidate(job *batchv1.Job) bool {
	s := job.Spec
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	return s.Parallelism != nil && *s.Parallelism > 1 && indexed &&
		s.Completions != nil && *s.Completions == *s.Parallelism &&
		s.Template.Spec.SchedulingGroup == nil
}

// decide decides the Job's Workload and PodGroup from the caller's
// view of those objects, and the PodGroup the Job's pods join (empty
// when the Job falls back to default scheduling). It follows upstream's rules:
//
//   - Workloads are the Job's when their spec.controllerRef names it (API
//     group batch, kind Job, its name) in its namespace. None: a Job that
//     has never started (no pods, no startTime, no finished pods, never
//     suspended) gets one, created here; older Jobs fall back. One: used if
//     the Job controls it (controller owner reference with its UID) and it
//     has exactly one PodGroupTemplate, else fall back. Several: fall back.
//   - PodGroups are the Workload's when spec.podGroupTemplateRef names it.
//     None: one is created from the Workload's template. One: used if the
//     Job controls it. Several: fall back.
//
// started says whether the Job has ever run (see started in claims.go).
func decide(job *batchv1.Job, workloads []*schedulingv1alpha2.Workload, podGroups []*schedulingv1alpha2.PodGroup, started bool) (d decision) {
	var matched []*schedulingv1alpha2.Workload
	for _, wl := range workloads {
		if wl != nil && wl.Namespace == job.Namespace && workloadNamesJob(wl, job.Name) {
			matched = append(matched, wl)
		}
	}
	var wl *schedulingv1alpha2.Workload
	switch len(matched) {
	case 0:
		if started {
			d.note = "no Workload is created: the Job has started already (WorkloadWithJob applies to new Jobs only)"
			return d
		}
		wl = newWorkload(job)
		d.workload = wl
		d.event = &jobsync.Event{Type: corev1.EventTypeNormal, Reason: "WorkloadCreated", Message: fmt.Sprintf("Created Workload %s for Job %s", wl.Name, job.Name)}
	case 1:
		wl = matched[0]
		if !controlledBy(wl.OwnerReferences, job) {
			d.note = fmt.Sprintf("default scheduling: Workload %s is not controlled by the Job", wl.Name)
			return d
		}
		if n := len(wl.Spec.PodGroupTemplates); n != 1 {
			d.note = fmt.Sprintf("default scheduling: Workload %s has %d PodGroupTemplates, not 1", wl.Name, n)
			return d
		}
	default:
		d.note = fmt.Sprintf("default scheduling: %d Workloads refer to the Job", len(matched))
		return d
	}

	var groups []*schedulingv1alpha2.PodGroup
	for _, pg := range podGroups {
		if pg != nil && pg.Namespace == wl.Namespace && podGroupNamesWorkload(pg, wl.Name) {
			groups = append(groups, pg)
		}
	}
	switch len(groups) {
	case 0:
		pg := newPodGroup(job, wl)
		d.podGroup = pg
		d.group = pg.Name
		return d
	case 1:
		if !controlledBy(groups[0].OwnerReferences, job) {
			d.note = fmt.Sprintf("default scheduling: PodGroup %s is not controlled by the Job", groups[0].Name)
			return d
		}
		d.group = groups[0].Name
		return d
	default:
		d.note = fmt.Sprintf("default scheduling: %d PodGroups refer to Workload %s", len(groups), wl.Name)
	}
	return d
}

func workloadNamesJob(wl *schedulingv1alpha2.Workload, job string) bool {
	r := wl.Spec.ControllerRef
	return r != nil && r.APIGroup == batchv1.SchemeGroupVersion.Group && r.Kind == "Job" && r.Name != "" && r.Name == job
}

func podGroupNamesWorkload(pg *schedulingv1alpha2.PodGroup, workload string) bool {
	r := pg.Spec.PodGroupTemplateRef
	return r != nil && r.Workload != nil && r.Workload.WorkloadName != "" && r.Workload.WorkloadName == workload
}

// controlledBy reports whether the first controller reference among refs
// carries the Job's UID (metav1.IsControlledBy).
func controlledBy(refs []metav1.OwnerReference, job *batchv1.Job) bool {
	for i := range refs {
		if c := refs[i].Controller; c != nil && *c {
			return refs[i].UID == job.UID
		}
	}
	return false
}

// newWorkload is the Workload created for a Job: named after the Job and
// a hash of its UID, controlled by the Job, with one PodGroupTemplate
// "<job>-pgt-0" asking for gang scheduling of parallelism pods.
func newWorkload(job *batchv1.Job) *schedulingv1alpha2.Workload {
	return &schedulingv1alpha2.Workload{
		TypeMeta: metav1.TypeMeta{APIVersion: schedulingv1alpha2.SchemeGroupVersion.String(), Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            workloadName(job),
			Namespace:       job.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: schedulingv1alpha2.WorkloadSpec{
			ControllerRef: &schedulingv1alpha2.TypedLocalObjectReference{
				APIGroup: batchv1.SchemeGroupVersion.Group,
				Kind:     "Job",
				Name:     job.Name,
			},
			PodGroupTemplates: []schedulingv1alpha2.PodGroupTemplate{{
				Name: job.Name + "-pgt-0",
				SchedulingPolicy: schedulingv1alpha2.PodGroupSchedulingPolicy{
					Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: *job.Spec.Parallelism},
				},
			}},
		},
	}
}

// newPodGroup is the PodGroup created for a Workload's first template:
// controlled by the Job, owned (without blocking its deletion) by the
// Workload, with the template's scheduling policy. When the Workload is
// created in the same plan, its UID is not known yet: the Workload owner
// reference then has an empty UID, which the caller fills in from the
// created Workload.
func newPodGroup(job *batchv1.Job, wl *schedulingv1alpha2.Workload) *schedulingv1alpha2.PodGroup {
	tmpl := wl.Spec.PodGroupTemplates[0]
	return &schedulingv1alpha2.PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: schedulingv1alpha2.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      podGroupName(wl.Name, tmpl.Name),
			Namespace: job.Namespace,
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job")),
				{APIVersion: schedulingv1alpha2.SchemeGroupVersion.String(), Kind: "Workload", Name: wl.Name, UID: wl.UID},
			},
		},
		Spec: schedulingv1alpha2.PodGroupSpec{
			PodGroupTemplateRef: &schedulingv1alpha2.PodGroupTemplateReference{
				Workload: &schedulingv1alpha2.WorkloadPodGroupTemplateReference{WorkloadName: wl.Name, PodGroupTemplateName: tmpl.Name},
			},
			SchedulingPolicy: *tmpl.SchedulingPolicy.DeepCopy(),
		},
	}
}

// workloadName is "<job name>-<hash of the Job's UID>", the name cut so
// that the whole fits a DNS subdomain. The hash is upstream's: FNV-32a of
// the UID as its object printer renders it, "(types.UID)<uid>", in
// decimal, spelled in the alphabet of generated names.
func workloadName(job *batchv1.Job) string {
	h := fnv.New32a()
	h.Write([]byte("(types.UID)" + string(job.UID)))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	prefix := job.Name
	if limit := validation.DNS1123SubdomainMaxLength - len(hash) - 1; len(prefix) > limit {
		prefix = prefix[:limit]
	}
	return prefix + "-" + hash
}

// podGroupName is "<workload>-<template>-<hash of both>", each part cut so
// that the whole fits a DNS subdomain: a part shorter than half the room
// keeps its length and the other takes the rest; when both are longer, the
// workload name gets the odd character.
func podGroupName(workload, template string) string {
	h := fnv.New32a()
	h.Write([]byte(workload))
	h.Write([]byte(template))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	room := validation.DNS1123SubdomainMaxLength - len(hash) - 2
	wl, tpl := workload, template
	if len(wl)+len(tpl) > room {
		half := room / 2
		switch {
		case len(wl) <= half:
			tpl = tpl[:room-len(wl)]
		case len(tpl) <= half:
			wl = wl[:room-len(tpl)]
		default:
			wl, tpl = wl[:room-half], tpl[:half]
		}
	}
	return wl + "-" + tpl + "-" + hash
}
