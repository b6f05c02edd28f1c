// Package jobview converts between a custom resource that embeds a JobSpec
// and the Job jobsync decides on: the resource "seen as a Job", with the
// resource's metadata (name, namespace, UID, resourceVersion, generation,
// deletionTimestamp, labels), its .spec read as a batchv1.JobSpec and its
// .status read as a batchv1.JobStatus.
//
// A resource's .spec and .status may hold fields of their own beside the
// Job's: FromUnstructured ignores them, and StatusPatch leaves the
// resource's own status fields alone. This is the one place of the
// controller module that knows how a resource maps onto a Job; the
// executor's DynamicStatusWriter writes through it.
package jobview
