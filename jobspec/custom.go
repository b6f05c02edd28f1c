package jobspec

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pendingUID stands in for the UID of an object not yet created, so that
// ValidateNew checks the selector and labels that Default will generate
// from the real one. It is a valid label value, and no API server assigns
// it (they assign RFC 4122 UUIDs).
const pendingUID types.UID = "uid-assigned-at-creation"

// Prepare is the per-sync step of a controller for a custom resource that
// embeds a JobSpec, which no API server defaults: given the resource seen
// as a Job (its metadata, UID included, with the embedded spec and
// status), it returns that Job defaulted as the API server would store a
// Job (see Default), with the selector and template labels generated from
// the UID, and what Validate reports of it. Call it on every sync, before
// jobsync.Reconcile, and reconcile only when the list is empty: since the
// generated fields derive from the name and UID alone, every sync of one
// object gets the same selector and labels. A nil job gives nil and the
// error Validate reports for nil. job itself is never modified.
func Prepare(job *batchv1.Job) (*batchv1.Job, field.ErrorList) {
	out := Default(job)
	return out, Validate(out)
}

// ValidateNew reports what Prepare will report once job is created, for a
// validating admission webhook on the create of a custom resource that
// embeds a JobSpec: at admission the object has its name but no UID yet.
// It defaults a copy under a stand-in UID and validates it, so that a
// selector or template label that conflicts with the generated ones is
// reported (the real UID is random: no value set by hand can match it),
// while the missing UID itself is not. Details that would name the
// stand-in name "the UID assigned at creation" instead. A job that has a
// UID is checked as it is, as Prepare checks it. A nil job gives the
// error Validate reports for nil; job itself is never modified.
//
// Like Validate, it checks a create: the rules the API server applies to
// updates of a stored Job (an immutable selector, completion mode and
// template outside suspension) are not checked.
func ValidateNew(job *batchv1.Job) field.ErrorList {
	if job == nil || job.UID != "" {
		_, errs := Prepare(job)
		return errs
	}
	c := job.DeepCopy()
	c.UID = pendingUID
	errs := Validate(Default(c))
	for i := range errs {
		errs[i].Detail = strings.ReplaceAll(errs[i].Detail, `"`+string(pendingUID)+`"`, "the UID assigned at creation")
	}
	return errs
}
