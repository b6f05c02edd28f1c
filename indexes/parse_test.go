package indexes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/indexes"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit int
		want  S
	}{
		{"empty string is the empty set", "", 10, nil},
		{"empty string with limit 0", "", 0, nil},
		{"one index", "0", 1, S{{0, 0}}},
		{"the documented example", "1,3-5,7", 8, S{{1, 1}, {3, 5}, {7, 7}}},
		{"neighbours are joined", "1,2", 3, S{{1, 2}}},
		{"neighbouring ranges are joined", "0-2,3-5,6", 7, S{{0, 6}}},
		{"a one-index range", "4-4", 5, S{{4, 4}}},
		{"leading zeros are read as decimal", "007,010-012", 13, S{{7, 7}, {10, 12}}},
		{"the highest index below the limit", "9", 10, S{{9, 9}}},
		{"negative limit: no bound", "0,2147483647", -1, S{{0, 0}, {2147483647, 2147483647}}},
		{"what String prints", "0,1,3-9,12", 13, S{{0, 1}, {3, 9}, {12, 12}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := indexes.Parse(tc.in, tc.limit)
			if err != nil {
				t.Fatalf("Parse(%q, %d): %v", tc.in, tc.limit, err)
			}
			if diff := cmp.Diff(tc.want, got, emptyIsNil); diff != "" {
				t.Errorf("Parse(%q, %d) (-want +got):\n%s", tc.in, tc.limit, diff)
			}
			if err := canonicalErr(got); err != nil {
				t.Errorf("not canonical: %v", err)
			}
		})
	}
}

// TestParseErrors: every malformed list is an *ParseError naming the byte
// offset of the offending element and the element itself.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		limit  int
		offset int
		elem   string
		why    string
	}{
		{"not a number", "a", -1, 0, "a", "not a non-negative decimal number"},
		{"second element not a number", "1,x", -1, 2, "x", "not a non-negative decimal number"},
		{"empty element in the middle", "1,,2", -1, 2, "", "empty index"},
		{"leading comma", ",1", -1, 0, "", "empty index"},
		{"trailing comma", "1,", -1, 2, "", "empty index"},
		{"just a comma", ",", -1, 0, "", "empty index"},
		{"negative index", "-1", -1, 0, "-1", "empty index"},
		{"plus sign", "+1", -1, 0, "+1", "not a non-negative decimal number"},
		{"spaces", "1, 2", -1, 2, " 2", "not a non-negative decimal number"},
		{"trailing space", "1 ", -1, 0, "1 ", "not a non-negative decimal number"},
		{"range without an end", "3-", -1, 0, "3-", "empty index"},
		{"range without a start", "-3", -1, 0, "-3", "empty index"},
		{"range with three parts", "1-2-3", -1, 0, "1-2-3", "not a non-negative decimal number"},
		{"range ending before it starts", "0,5-3", -1, 2, "5-3", "range ends before it starts"},
		{"descending elements", "3,1", -1, 2, "1", "not in ascending order"},
		{"repeated index", "1,1", -1, 2, "1", "not in ascending order"},
		{"overlapping ranges", "1-3,3-5", -1, 4, "3-5", "overlapping"},
		{"range starting inside the previous one", "0-9,5", -1, 4, "5", "overlapping"},
		{"index at the limit", "0,5", 5, 2, "5", "index 5 is not below 5"},
		{"range running past the limit", "1-7", 5, 0, "1-7", "index 7 is not below 5"},
		{"anything with limit 0", "0", 0, 0, "0", "not below 0"},
		{"beyond int32", "2147483648", -1, 0, "2147483648", "does not fit in int32"},
		{"far beyond int64", "99999999999999999999999", -1, 0, "99999999999999999999999", "does not fit in int32"},
		{"offset counts bytes of earlier elements", "10,200,3000-3001,x", -1, 17, "x", "not a non-negative decimal number"},
		{"non-ASCII digit", "١", -1, 0, "١", "not a non-negative decimal number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := indexes.Parse(tc.in, tc.limit)
			if err == nil {
				t.Fatalf("Parse(%q, %d) = %v, want an error", tc.in, tc.limit, got)
			}
			if got != nil {
				t.Errorf("Parse returned a partial set %v with its error", got)
			}
			var pe *indexes.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			want := indexes.ParseError{Input: tc.in, Offset: tc.offset, Elem: tc.elem}
			if diff := cmp.Diff(want, *pe, cmpIgnoreWhy); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if !strings.Contains(pe.Why, tc.why) {
				t.Errorf("Why = %q, want it to mention %q", pe.Why, tc.why)
			}
			if !strings.HasPrefix(tc.in[pe.Offset:], pe.Elem) {
				t.Errorf("input at offset %d does not start with the element %q", pe.Offset, pe.Elem)
			}
			for _, part := range []string{tc.in, tc.elem, tc.why} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("message %q does not mention %q", err.Error(), part)
				}
			}
		})
	}
}

var cmpIgnoreWhy = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Why" }, cmp.Ignore())

func TestParseErrorMessage(t *testing.T) {
	_, err := indexes.Parse("1,3-2", 10)
	want := `index list "1,3-2": element "3-2" at offset 2: range ends before it starts`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

// TestParseLenient follows upstream's parseIndexesFromString, which reads
// what is in the Job's status and successPolicy as best it can.
func TestParseLenient(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit int
		want  S
	}{
		{"empty", "", 10, nil},
		{"well-formed", "1,3-5,7", 8, S{{1, 1}, {3, 5}, {7, 7}}},
		{"neighbours joined", "3,4,6", 7, S{{3, 4}, {6, 6}}},
		{"neighbouring ranges joined", "0-2,3-5", 7, S{{0, 5}}},
		// Upstream: "prev interval out of range".
		{"an element starting at the limit stops the reading", "0-5,8-10", 8, S{{0, 5}}},
		// Upstream: "prev interval partially out of range".
		{"a range running past the limit is cut", "0-5,8-10", 10, S{{0, 5}, {8, 9}}},
		{"later elements below the limit are not read after a stop", "1,9,2", 5, S{{1, 1}}},
		{"limit 0 reads nothing", "0,1", 0, nil},
		{"negative limit reads nothing", "0,1", -1, nil},
		// Upstream: "corrupted interval".
		{"elements that are not numbers are skipped", "0,1-foo,bar", 4, S{{0, 0}}},
		{"a skipped element does not break a join", "1,x,2", 4, S{{1, 2}}},
		{"empty elements are skipped", ",1,,2,", 4, S{{1, 2}}},
		{"a negative index is skipped", "-2,1", 4, S{{1, 1}}},
		{"a plus sign is read", "+1,+2", 4, S{{1, 2}}},
		{"leading zeros are read", "01,002", 4, S{{1, 2}}},
		{"a third part of a range is ignored", "1-2-3", 5, S{{1, 2}}},
		{"spaces make an element unreadable", " 1,2", 4, S{{2, 2}}},
		{"out of order elements are kept as they come", "5,1", 10, S{{5, 5}, {1, 1}}},
		{"a reversed range is kept as it comes", "4-2", 10, S{{4, 2}}},
		{"overlaps are kept as they come", "1-5,3-4", 10, S{{1, 5}, {3, 4}}},
		{"a number too big for int is skipped", "99999999999999999999,3", 10, S{{3, 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := indexes.ParseLenient(tc.in, tc.limit)
			if diff := cmp.Diff(tc.want, got, emptyIsNil); diff != "" {
				t.Errorf("ParseLenient(%q, %d) (-want +got):\n%s", tc.in, tc.limit, diff)
			}
		})
	}
}

func TestOf(t *testing.T) {
	const key = batchv1.JobCompletionIndexAnnotation
	cases := []struct {
		name        string
		annotations map[string]string
		want        int
	}{
		{"nil annotations", nil, indexes.Unknown},
		{"no index annotation", map[string]string{"other": "3"}, indexes.Unknown},
		{"index 0", map[string]string{key: "0"}, 0},
		{"index 7", map[string]string{key: "7"}, 7},
		{"empty value", map[string]string{key: ""}, indexes.Unknown},
		{"negative", map[string]string{key: "-1"}, indexes.Unknown},
		{"minus zero is zero", map[string]string{key: "-0"}, 0},
		{"plus sign is read", map[string]string{key: "+3"}, 3},
		{"leading zeros are read", map[string]string{key: "007"}, 7},
		{"not a number", map[string]string{key: "three"}, indexes.Unknown},
		{"surrounding space", map[string]string{key: " 3"}, indexes.Unknown},
		{"a range is not an index", map[string]string{key: "1-2"}, indexes.Unknown},
		{"too big for int", map[string]string{key: "99999999999999999999"}, indexes.Unknown},
		{"a different key that starts the same does not count", map[string]string{batchv1.JobCompletionIndexAnnotation + "x": "3"}, indexes.Unknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := indexes.Of(tc.annotations); got != tc.want {
				t.Errorf("Of(%v) = %d, want %d", tc.annotations, got, tc.want)
			}
		})
	}
	if indexes.Unknown != -1 {
		t.Errorf("Unknown = %d, want upstream's -1", indexes.Unknown)
	}
}
