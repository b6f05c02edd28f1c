package indexes_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/indexes"
)

// FuzzParse: neither parser panics on any input; Parse either fails with a
// *ParseError that points at an element of the input, or returns a canonical
// set that prints and parses back to itself and that ParseLenient agrees
// with; ParseLenient stays within [0, limit).
func FuzzParse(f *testing.F) {
	for _, seed := range []struct {
		s     string
		limit int
	}{
		{"", 0}, {"0", 1}, {"1,3-5,7", 8}, {"1,2", 3}, {"0-5,8-10", 8}, {"0-5,8-10", 10},
		{"0,1-foo,bar", 4}, {"5,1", 10}, {"4-2", 10}, {"1-2-3", 5}, {",,", 3}, {"-1", 3},
		{"+1", 3}, {"007", 10}, {"2147483647", -1}, {"2147483648", -1}, {"9223372036854775808", 10},
		{"1-3,3-5", 10}, {"0,1,3-9,12", 13}, {"1, 2", 5},
	} {
		f.Add(seed.s, seed.limit)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		lenient := indexes.ParseLenient(s, limit)
		for _, iv := range lenient {
			if iv.First < 0 || iv.Last < 0 || iv.First >= limit || iv.Last >= limit {
				t.Fatalf("ParseLenient(%q, %d) = %v: an interval outside [0, %d)", s, limit, lenient, limit)
			}
		}
		_ = lenient.Total()
		_ = lenient.Has(0)

		set, err := indexes.Parse(s, limit)
		if err != nil {
			var pe *indexes.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q, %d): error %T is not a *ParseError", s, limit, err)
			}
			if set != nil {
				t.Fatalf("Parse(%q, %d) returned %v with its error", s, limit, set)
			}
			if pe.Input != s || pe.Offset < 0 || pe.Offset > len(s) || !strings.HasPrefix(s[pe.Offset:], pe.Elem) ||
				strings.Contains(pe.Elem, ",") || (pe.Offset > 0 && s[pe.Offset-1] != ',') {
				t.Fatalf("Parse(%q, %d): error does not point at an element: %+v", s, limit, pe)
			}
			return
		}
		if err := canonicalErr(set); err != nil {
			t.Fatalf("Parse(%q, %d) = %v, not canonical: %v", s, limit, set, err)
		}
		if limit >= 0 {
			if n := len(set); n > 0 && set[n-1].Last >= limit {
				t.Fatalf("Parse(%q, %d) = %v, past the limit", s, limit, set)
			}
			if diff := cmp.Diff(set, lenient, emptyIsNil); diff != "" {
				t.Fatalf("ParseLenient(%q, %d) differs from Parse (-strict +lenient):\n%s", s, limit, diff)
			}
		}
		printed := set.String()
		again, err := indexes.Parse(printed, limit)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", s, printed, err)
		}
		if diff := cmp.Diff(set, again, emptyIsNil); diff != "" {
			t.Fatalf("%q -> %q does not round-trip (-first +second):\n%s", s, printed, diff)
		}
		if again.String() != printed {
			t.Fatalf("printing is not a fixpoint: %q then %q", printed, again.String())
		}
	})
}

// FuzzOf: Of never panics and answers either Unknown or the non-negative
// integer that strconv reads from the annotation.
func FuzzOf(f *testing.F) {
	for _, seed := range []string{"", "0", "7", "-1", "-0", "+3", "007", " 3", "1-2", "three",
		"2147483648", "9223372036854775807", "9223372036854775808"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := indexes.Of(map[string]string{batchv1.JobCompletionIndexAnnotation: v})
		want := indexes.Unknown
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			want = n
		}
		if got != want {
			t.Fatalf("Of(%q) = %d, want %d", v, got, want)
		}
		if other := indexes.Of(map[string]string{"x/" + batchv1.JobCompletionIndexAnnotation: v}); other != indexes.Unknown {
			t.Fatalf("Of read the index %d from another key", other)
		}
	})
}
