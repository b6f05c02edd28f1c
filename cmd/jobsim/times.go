package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An RFC 3339 time has a four-digit year, but its offset can carry it out
// of the years 0 to 9999 in UTC: "9999-12-31T23:00:00-05:00" is in the
// year 10000. Kubernetes writes its times in UTC, in a form it cannot read
// back for such a year, and Go's JSON encoding of a time.Time refuses it,
// so such a time reaches no cluster; jobsim refuses it where it is read,
// naming the field, rather than fail to print a plan made from it.

// outOfYears reports whether t is outside the years Kubernetes can write.
func outOfYears(t time.Time) bool {
	y := t.UTC().Year()
	return y < 0 || y > 9999
}

// mayLeaveYears is a quick look at an object's JSON: only a time on the
// first or the last day of the years an RFC 3339 time can spell can leave
// them once in UTC.
func mayLeaveYears(js []byte) bool {
	return bytes.Contains(js, []byte(`"9999-12-31T`)) || bytes.Contains(js, []byte(`"0000-01-01T`))
}

// checkTimes refuses an object (decoded from js, the document doc read at
// at) holding a time outside the years 0 to 9999 in UTC, naming its field
// and, when it finds it, the field's line. The walk through the object
// runs only when its JSON has such a date at all.
func checkTimes(at source, doc document, kind string, js []byte, obj any) error {
	if !mayLeaveYears(js) {
		return nil
	}
	path, t, found := timeOutOfYears(reflect.ValueOf(obj), "")
	if !found {
		return nil
	}
	path = strings.TrimPrefix(path, ".")
	key := path[strings.LastIndex(path, ".")+1:]
	if line := findKeyLine(doc, key); line > 0 {
		at.line = line
	}
	return errorAt(at, "%s field %s is %s in UTC, past the year 9999: Kubernetes writes times in UTC with a four-digit year, so no cluster holds this one",
		kind, path, t.UTC().Format(time.RFC3339))
}

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
)

// timeOutOfYears returns the path (in the JSON names of the fields) of
// the first metav1.Time or metav1.MicroTime in v outside the years, and
// the time.
func timeOutOfYears(v reflect.Value, path string) (string, time.Time, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", time.Time{}, false
		}
		return timeOutOfYears(v.Elem(), path)
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			t := v.Interface().(metav1.Time).Time
			return path, t, outOfYears(t)
		case microTimeType:
			t := v.Interface().(metav1.MicroTime).Time
			return path, t, outOfYears(t)
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			sub := path
			switch {
			case name == "-":
				continue
			case name != "":
				sub = path + "." + name
			case !f.Anonymous:
				sub = path + "." + f.Name
			}
			if p, t, found := timeOutOfYears(v.Field(i), sub); found {
				return p, t, true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", time.Time{}, false // bytes: raw JSON, no times
		}
		for i := range v.Len() {
			if p, t, found := timeOutOfYears(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); found {
				return p, t, true
			}
		}
	}
	return "", time.Time{}, false
}

// printTime is a time as plan's JSON and YAML print it: as time.Time does
// (RFC 3339 with the nanoseconds that are not zero), but in any year, so
// that a requeue time past the year 9999 (a late clock plus a long
// deadline) is printed rather than refused by the encoder.
type printTime time.Time

// MarshalJSON writes the time as a JSON string.
func (t printTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(time.RFC3339Nano)+2)
	b = append(b, '"')
	b = time.Time(t).AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}
