package scenario

import (
	"bytes"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/jobsync"
)

// Digest is the expected plan of a scenario file, in a form a person can
// check line by line.
type Digest struct {
	Skipped   string   `json:"skipped,omitempty"`
	Releases  []string `json:"releases,omitempty"`
	Adoptions []string `json:"adoptions,omitempty"`
	// ClaimPatches are the claims' strategic merge patches, releases first.
	ClaimPatches []string `json:"claimPatches,omitempty"`
	// Workload and PodGroup are the scheduling objects an alpha module
	// adds to the plan (see Scenario.Workloads); jobsync's plans have none.
	// They are compared in their JSON form.
	Workload          any                `json:"workloadCreation,omitempty"`
	PodGroup          any                `json:"podGroupCreation,omitempty"`
	Deletions         []string           `json:"deletions,omitempty"`
	Creations         []string           `json:"creations,omitempty"`
	InterimStatus     *batchv1.JobStatus `json:"interimStatus,omitempty"`
	FinalizerRemovals []string           `json:"finalizerRemovals,omitempty"`
	Status            *batchv1.JobStatus `json:"status,omitempty"`
	RequeueAfter      string             `json:"requeueAfter,omitempty"`
	Events            []string           `json:"events,omitempty"`
	Expectations      ExpectationsDigest `json:"expectations"`
	Backoff           backoff.Record     `json:"backoff"`
	Notes             []string           `json:"notes,omitempty"`
}

// ExpectationsDigest is the plan's expectations in Digest.
type ExpectationsDigest struct {
	Creations         int64       `json:"creations,omitempty"`
	Deletions         int64       `json:"deletions,omitempty"`
	SetAt             string      `json:"setAt,omitempty"`
	FinalizerRemovals []types.UID `json:"finalizerRemovals,omitempty"`
	JobFinished       bool        `json:"jobFinished,omitempty"`
}

// DigestOf is the digest of a plan.
func DigestOf(p jobsync.Plan) Digest {
	d := Digest{
		Skipped:       p.Skipped,
		InterimStatus: p.InterimStatus,
		Status:        p.Status,
		Backoff:       p.Backoff,
		Notes:         p.Notes,
		Expectations: ExpectationsDigest{
			Creations:         p.Expectations.Creations,
			Deletions:         p.Expectations.Deletions,
			FinalizerRemovals: p.Expectations.FinalizerRemovals.Sorted(),
			JobFinished:       p.Expectations.JobFinished,
		},
	}
	if !p.Expectations.SetAt.IsZero() {
		d.Expectations.SetAt = p.Expectations.SetAt.UTC().Format(time.RFC3339)
	}
	for _, c := range p.Releases {
		d.Releases = append(d.Releases, c.Pod.Name+": "+c.Reason)
		d.ClaimPatches = append(d.ClaimPatches, c.Pod.Name+" "+string(c.Patch))
	}
	for _, c := range p.Adoptions {
		d.Adoptions = append(d.Adoptions, c.Pod.Name+": "+c.Reason)
		d.ClaimPatches = append(d.ClaimPatches, c.Pod.Name+" "+string(c.Patch))
	}
	for _, del := range p.Deletions {
		var flags []string
		if del.RemoveFinalizer {
			flags = append(flags, "finalizer removed first")
		}
		if del.Ready {
			flags = append(flags, "ready")
		}
		s := del.Pod.Name
		if len(flags) > 0 {
			s += " (" + strings.Join(flags, ", ") + ")"
		}
		d.Deletions = append(d.Deletions, s+": "+del.Reason)
	}
	for _, c := range p.Creations {
		s := c.Pod.GenerateName
		if v, ok := c.Pod.Annotations[batchv1.JobIndexFailureCountAnnotation]; ok {
			s += " failure-count=" + v
		}
		if v, ok := c.Pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]; ok {
			s += " ignored-failure-count=" + v
		}
		if g := c.Pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
			s += " podGroup=" + *g.PodGroupName
		}
		d.Creations = append(d.Creations, s+": "+c.Reason)
	}
	for _, r := range p.FinalizerRemovals {
		d.FinalizerRemovals = append(d.FinalizerRemovals, r.Pod.Name+": "+r.Reason)
	}
	if p.RequeueAfter > 0 {
		d.RequeueAfter = p.RequeueAfter.String()
	}
	for _, e := range p.Events {
		d.Events = append(d.Events, e.Type+" "+e.Reason+": "+e.Message)
	}
	return d
}

// WantHeader nests a marshalled digest under a "want:" key, so that the
// file reads as one YAML document.
func WantHeader(b []byte) []byte {
	var out bytes.Buffer
	out.WriteString("want:\n")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		out.WriteString("  " + line)
	}
	return out.Bytes()
}

// ReadWant reads the expected plan of a scenario file (the text after
// WantMarker): a digest under a "want:" key, or a bare one.
func ReadWant(text []byte) (Digest, error) {
	var wrapper struct {
		Want Digest `json:"want"`
	}
	if err := yaml.UnmarshalStrict(text, &wrapper); err == nil {
		return wrapper.Want, nil
	}
	var d Digest
	err := yaml.UnmarshalStrict(text, &d)
	return d, err
}
