package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// A time that an offset carries past the year 9999 once in UTC is refused
// where it is read, naming its field and line; the last moments of the
// year 9999, whatever their offset, are read.
func TestTimesPastYear9999(t *testing.T) {
	job := func(start, transition string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\nstatus:\n" +
			"  startTime: \"" + start + "\"\n  conditions:\n  - type: Suspended\n    status: \"False\"\n" +
			"  - type: Complete\n    status: \"False\"\n    lastTransitionTime: \"" + transition + "\"\n"
	}
	for _, c := range []struct {
		name, data string
		field      string // in the error; empty: no error
		line       int
	}{
		{"the last second of the year 9999 in UTC", job("9999-12-31T23:59:59Z", "9999-12-31T23:59:59+05:00"), "", 0},
		{"a start time in the year 10000", job("9999-12-31T23:00:00-05:00", "2026-01-01T00:00:00Z"), "Job field status.startTime is 10000-01-01T04:00:00Z in UTC", 7},
		{"a condition's time in the year 10000", job("2026-01-01T00:00:00Z", "9999-12-31T23:59:59-00:01"), "Job field status.conditions[1].lastTransitionTime is 10000-01-01T00:00:59Z in UTC", 13},
		{"a List item's time in the year 10000", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n    creationTimestamp: \"9999-12-31T20:00:00-04:00\"\n",
			"Pod field metadata.creationTimestamp is 10000-01-01T00:00:00Z in UTC", 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, _, err := decodeFile("t.yaml", []byte(c.data))
			if c.field == "" {
				if err != nil || len(objs) != 1 {
					t.Fatalf("got %d objects and error %v, want the object", len(objs), err)
				}
				return
			}
			var ie *inputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.field) || ie.at.line != c.line {
				t.Fatalf("got error %v, want one on line %d saying %q", err, c.line, c.field)
			}
		})
	}
}

// plan prints a requeue time past the year 9999 (a late clock plus a long
// deadline) as a time, where encoding/json's time.Time refuses it.
func TestPrintTimePastYear9999(t *testing.T) {
	at := time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC).Add(2 * time.Hour)
	if _, err := json.Marshal(at); err == nil {
		t.Fatal("encoding/json writes a time in the year 10000: the test shows nothing")
	}
	b, err := json.Marshal(planDocument{Now: printTime(at), RequeueAt: (*printTime)(&at)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"now":"10000-01-01T01:00:00Z"`; !strings.Contains(string(b), want) || !strings.Contains(string(b), `"requeueAt":"10000-01-01T01:00:00Z"`) {
		t.Fatalf("got %s, want now and requeueAt as %s", b, want)
	}
	usual := time.Date(2026, 1, 5, 10, 0, 13, 500, time.UTC)
	want, _ := json.Marshal(usual)
	if got, _ := json.Marshal(printTime(usual)); string(got) != string(want) {
		t.Fatalf("a usual time prints as %s, time.Time as %s", got, want)
	}
}
