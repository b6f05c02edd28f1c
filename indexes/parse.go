package indexes

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
)

// Unknown is what Of returns for a pod without a usable completion index.
const Unknown = -1

// ParseError says where an index list is malformed.
type ParseError struct {
	Input  string // the whole list
	Offset int    // byte offset of the offending element
	Elem   string // the offending element
	Why    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("index list %q: element %q at offset %d: %s", e.Input, e.Elem, e.Offset, e.Why)
}

// Parse reads a list such as "1,3-5,7" strictly: every element is a
// non-negative decimal index or a range "a-b" with a <= b, elements are in
// ascending order and do not overlap. The empty string is the empty set.
// Indexes at or above limit are an error unless limit is negative.
func Parse(s string, limit int) (Set, error) {
	if s == "" {
		return nil, nil
	}
	var out Set
	offset := 0
	for _, elem := range strings.Split(s, ",") {
		fail := func(why string) (Set, error) {
			return nil, &ParseError{Input: s, Offset: offset, Elem: elem, Why: why}
		}
		first, last, ok := strings.Cut(elem, "-")
		a, err := parseIndex(first)
		if err != nil {
			return fail(err.Error())
		}
		b := a
		if ok {
			if b, err = parseIndex(last); err != nil {
				return fail(err.Error())
			}
			if b < a {
				return fail("range ends before it starts")
			}
		}
		if limit >= 0 && b >= limit {
			return fail(fmt.Sprintf("index %d is not below %d", b, limit))
		}
		if n := len(out); n > 0 && a <= out[n-1].Last {
			return fail("not in ascending order or overlapping the previous element")
		}
		if n := len(out); n > 0 && a == out[n-1].Last+1 {
			out[n-1].Last = b
		} else {
			out = append(out, Interval{a, b})
		}
		offset += len(elem) + 1
	}
	return out, nil
}

func parseIndex(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty index")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a non-negative decimal number", s)
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit in int32", s)
	}
	return int(v), nil
}

// ParseLenient reads an index list the way upstream's controller reads the
// lists in Job status and in successPolicy rules: elements that are not
// numbers are skipped, reading stops at the first element starting at or
// above limit, a range running past limit is cut at limit-1, and an element
// adjacent to the previous one is joined to it. Well-formed input gives the
// same set as Parse. Malformed input in a non-ascending order gives a Set that
// is not in canonical form, exactly as upstream's would be; the caller that
// cares checks with Parse first.
func ParseLenient(s string, limit int) Set {
	if s == "" {
		return nil
	}
	var out Set
	for _, elem := range strings.Split(s, ",") {
		parts := strings.Split(elem, "-")
		a, err := strconv.Atoi(parts[0])
		if err != nil {
			continue
		}
		if a >= limit {
			break
		}
		b := a
		if len(parts) > 1 {
			if b, err = strconv.Atoi(parts[1]); err != nil {
				continue
			}
			if b >= limit {
				b = limit - 1
			}
		}
		if n := len(out); n > 0 && out[n-1].Last == a-1 {
			out[n-1].Last = b
		} else {
			out = append(out, Interval{a, b})
		}
	}
	return out
}

// Of returns the completion index written in a pod's annotations
// (batch.kubernetes.io/job-completion-index), or Unknown when it is missing,
// not a decimal integer or negative, as upstream reads it.
func Of(annotations map[string]string) int {
	v, ok := annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return Unknown
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return Unknown
	}
	return i
}
