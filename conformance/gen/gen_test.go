package gen

import (
	"reflect"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestFamiliesGenerateSoundSnapshots(t *testing.T) {
	for _, fam := range Families {
		t.Run(fam, func(t *testing.T) {
			for seed := range uint64(200) {
				c, err := Generate(fam, seed)
				if err != nil {
					t.Fatal(err)
				}
				checkSnapshot(t, c)
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, fam := range Families {
		a, _ := Generate(fam, 7)
		b, _ := Generate(fam, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two generations of seed 7 differ", fam)
		}
	}
}

func checkSnapshot(t *testing.T, c Case) {
	t.Helper()
	job := c.Snapshot.Job
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		t.Fatalf("%s/%d: selector: %v", c.Family, c.Seed, err)
	}
	if !sel.Matches(labels.Set(job.Spec.Template.Labels)) {
		t.Errorf("%s/%d: template labels do not match the selector", c.Family, c.Seed)
	}
	if job.Spec.BackoffLimit == nil || job.Spec.Parallelism == nil || job.Spec.CompletionMode == nil || job.Spec.Suspend == nil || job.Spec.PodReplacementPolicy == nil {
		t.Errorf("%s/%d: Job not defaulted: %+v", c.Family, c.Seed, job.Spec)
	}
	st := job.Status
	if st.Ready != nil && *st.Ready > st.Active {
		t.Errorf("%s/%d: status has more ready (%d) than active (%d)", c.Family, c.Seed, *st.Ready, st.Active)
	}
	seen := map[string]bool{}
	for _, p := range c.Snapshot.Pods {
		if seen[p.Name] || seen[string(p.UID)] {
			t.Errorf("%s/%d: duplicate pod %s", c.Family, c.Seed, p.Name)
		}
		seen[p.Name], seen[string(p.UID)] = true, true
		if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == job.UID && !sel.Matches(labels.Set(p.Labels)) && p.Labels[job.Spec.Template.Labels[batchv1.ControllerUidLabel]] == "" {
			_ = ref
		}
		if p.CreationTimestamp.After(c.Snapshot.Now) {
			t.Errorf("%s/%d: pod %s created in the future", c.Family, c.Seed, p.Name)
		}
	}
	if e := c.Snapshot.Expectations; (e.Creations > 0 || e.Deletions > 0) && c.Snapshot.Now.Sub(e.SetAt) > 0 {
		age := c.Snapshot.Now.Sub(e.SetAt).Seconds()
		if age > 295 && age < 305 {
			t.Errorf("%s/%d: expectations age %vs is too close to the 5-minute expiry", c.Family, c.Seed, age)
		}
	}
}
