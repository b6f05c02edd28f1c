package harness

import "testing"

// TestOnlyCreated: none is nil, one is kept, more than one is an error of
// the sync that names the count and the kind.
func TestOnlyCreated(t *testing.T) {
	a, b := new(int), new(int)
	for _, tc := range []struct {
		created []*int
		want    *int
		errs    string
	}{
		{nil, nil, ""},
		{[]*int{a}, a, ""},
		{[]*int{a, b}, nil, "; 2 Workloads created"},
	} {
		got, errs := onlyCreated(tc.created, "Workloads")
		if got != tc.want || errs != tc.errs {
			t.Errorf("onlyCreated(%d objects) = %p, %q; want %p, %q", len(tc.created), got, errs, tc.want, tc.errs)
		}
	}
}
