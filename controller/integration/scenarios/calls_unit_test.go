package scenarios

import (
	"slices"
	"testing"
)

func TestSelectsRun(t *testing.T) {
	runs := []string{"Indexed/qps100/upstream", "Indexed/qps100/ours", "NonIndexed/qps100/upstream", "NonIndexed/unthrottled/ours"}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"", runs},
		{"Indexed/qps100", []string{"Indexed/qps100/upstream", "Indexed/qps100/ours"}},
		{"Indexed", []string{"Indexed/qps100/upstream", "Indexed/qps100/ours"}},
		{"*/*/ours", []string{"Indexed/qps100/ours", "NonIndexed/unthrottled/ours"}},
		{"NonIndexed/unthrottled/ours", []string{"NonIndexed/unthrottled/ours"}},
		{"Indexed/qps100/ours/extra", nil},
	} {
		var got []string
		for _, r := range runs {
			if selectsRun(tc.pattern, r) {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("pattern %q selects %v, want %v", tc.pattern, got, tc.want)
		}
	}
}
