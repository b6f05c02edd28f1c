package main

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The line numbers of List items, in kubectl's layout and in the indented
// one other tools print; a layout the heuristic does not know falls back to
// the List's own line.
func TestListItemLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []int
	}{
		{"kubectl", "apiVersion: v1\nitems:\n- kind: Pod\n  spec:\n    containers:\n    - name: a\n- kind: Pod\nkind: List\n", []int{3, 7}},
		{"indented", "apiVersion: v1\nitems:\n  - kind: Pod\n    spec:\n      containers:\n      - name: a\n  - kind: Pod\nkind: List\n", []int{3, 7}},
		{"flow", "apiVersion: v1\nitems: [{kind: Pod}, {kind: Pod}]\nkind: List\n", []int{1, 1}},
	} {
		if got := sequenceItemLines(document{text: []byte(c.text), line: 1}, "items", len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("%s: lines %v, want %v", c.name, got, c.want)
		}
	}
}

// Documents keep the line they start on, so that errors point into the
// file and not into the document.
func TestSplitDocuments(t *testing.T) {
	var got []int
	for _, d := range splitDocuments([]byte("# head\n---\na: 1\n--- # second\nb: 2\n---\n")) {
		got = append(got, d.line)
	}
	if want := []int{1, 3, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("documents start on lines %v, want %v", got, want)
	}
}

// A line longer than any buffer (here 17 MiB, a comment) neither ends the
// file early nor is skipped in silence: every document after it is read.
func TestSplitDocumentsLongLine(t *testing.T) {
	long := "# " + strings.Repeat("x", 17<<20) + "\n"
	data := []byte("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n---\n" + long +
		"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n")
	objs, docs, err := decodeFile("long.yaml", data)
	if err != nil {
		t.Fatalf("decodeFile: %v", err)
	}
	if docs != 2 || len(objs) != 2 || objs[1].pod == nil || objs[1].pod.Name != "p" || objs[1].at.line != 8 {
		t.Fatalf("want the Job and pod p at line 8 after the long line, got %d documents: %+v", docs, objs)
	}
}

// Reading a List takes memory in proportion to its size: four times the
// pods, about four times the bytes allocated (finding each item's line by
// re-reading the whole List made it sixteen).
func TestDecodeListMemoryIsLinear(t *testing.T) {
	perByte := func(pods int) float64 {
		data := podList(pods)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		objs, _, err := decodeFile("list.yaml", data)
		runtime.ReadMemStats(&after)
		if err != nil || len(objs) != pods {
			t.Fatalf("decodeFile: %d objects, %v", len(objs), err)
		}
		if objs[pods-1].at.line != 2+(pods-1)*podListItemLines+1 {
			t.Fatalf("last item at line %d, want %d", objs[pods-1].at.line, 2+(pods-1)*podListItemLines+1)
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data))
	}
	small, large := perByte(1000), perByte(4000)
	if large > 1.5*small {
		t.Errorf("%.0f bytes allocated per input byte for 4000 pods, %.0f for 1000: not linear", large, small)
	}
}

// podListItemLines is the number of lines of one item of podList.
const podListItemLines = 17

// podList is a List of n pods in kubectl's layout, as
// `kubectl get pods -o yaml` prints them for a Job.
func podList(n int) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    name: pi-%d
    namespace: default
    uid: 00000000-0000-0000-0000-%012d
    labels:
      batch.kubernetes.io/controller-uid: 6f9c1e52-0000-0000-0000-000000000000
      batch.kubernetes.io/job-name: pi
    finalizers:
    - batch.kubernetes.io/job-tracking
  spec:
    containers:
    - name: pi
      image: perl:5.34.0
  status:
    phase: Running
`, i, i)
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Bytes()
}

// A List in kubectl's layout is cut into its items, each read alone, with
// the line of its "-"; a List the cut cannot trust is read whole, and gives
// the same objects (or an error) either way.
func TestCutList(t *testing.T) {
	pod := func(name string) string {
		return "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: " + name + "\n"
	}
	for _, c := range []struct {
		name, text string
		cut        bool
		lines      []int // of the objects; nil: an error
	}{
		{"kubectl", "apiVersion: v1\nitems:\n" + pod("a") + "# note\n" + pod("b") + "kind: List\nmetadata:\n  resourceVersion: \"\"\n", true, []int{3, 8}},
		{"indented", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: a}\n  -\n    apiVersion: v1\n    kind: Pod\n    metadata: {name: b}\n", true, []int{4, 7}},
		{"CRLF", "apiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: v1\r\n  kind: Pod\r\n  metadata: {name: a}\r\n", true, []int{4}},
		{"items last, no newline", "kind: List\napiVersion: v1\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}}", true, []int{4}},
		{"empty List", "apiVersion: v1\nitems: []\nkind: List\n", false, []int{}},
		{"flow items", "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod, metadata: {name: a}}]\n", false, []int{1}},
		{"quoted scalar running into the next item", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  x: \"a\n- b\n    c\"\n", true, nil},
		{"quoted scalar over the items, closed after them", "apiVersion: v1\nkind: List\nnote: \"x\nitems:\n- kind: Pod\ny\"\n", false, []int{}},
		{"anchor in one item, alias in another", "apiVersion: v1\nkind: List\nitems:\n- &p {apiVersion: v1, kind: Pod, metadata: {name: a}}\n- *p\n", true, []int{4, 5}},
		{"items twice", "apiVersion: v1\nkind: List\nitems:\n" + pod("a") + "items:\n" + pod("b"), true, nil},
		{"not a List", "apiVersion: v1\nkind: Pod\nitems:\n" + pod("a"), true, nil},
		{"an item that is not an object", "apiVersion: v1\nkind: List\nitems:\n" + pod("a") + "- 3\n", true, nil},
		{"a line between the dash and the item's content", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n :x: 1\n", false, nil},
		{"a lone dash, content on the next line", "apiVersion: v1\nkind: List\nitems:\n-\n   apiVersion: v1\n   kind: Pod\n   metadata: {name: a}\n", true, []int{4}},
		{"a lone carriage return breaking a line", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  \r:x\n", false, nil},
		{"a line the cut cannot place", "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Pod, metadata: {name: a}}\n x: 1\n", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := document{text: []byte(c.text), line: 1}
			if _, ok := cutList(doc); ok != c.cut {
				t.Errorf("cut %v, want %v", ok, c.cut)
			}
			objs, _, err := decodeFile("list.yaml", []byte(c.text))
			wobjs, _, werr := decodeFileCut("list.yaml", []byte(c.text), false)
			if (err == nil) != (werr == nil) || len(objs) != len(wobjs) {
				t.Fatalf("cut: %d objects, %v; whole: %d objects, %v", len(objs), err, len(wobjs), werr)
			}
			if c.lines == nil {
				if err == nil {
					t.Fatalf("no error, want one")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for i, o := range objs {
				lines = append(lines, o.at.line)
				if o.pod == nil || wobjs[i].pod == nil || o.pod.Name != wobjs[i].pod.Name {
					t.Errorf("object %d: %+v, whole %+v", i, o, wobjs[i])
				}
			}
			if !slices.Equal(lines, c.lines) && !(len(lines) == 0 && len(c.lines) == 0) {
				t.Errorf("lines %v, want %v", lines, c.lines)
			}
		})
	}
}

// Content that YAML's document markers would make the readers drop is
// refused, on its line: a document written on its "---" line, and content
// after a "..." end marker before the next "---". What the markers allow
// without losing anything (comments, blank lines, an end marker followed
// by a new document) is read.
func TestDocumentMarkers(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n"
	for _, c := range []struct {
		name string
		data string
		line int // of the error; 0: no error
		objs int
	}{
		{"a document on its separator line", pod + `--- {"apiVersion": "v1", "kind": "Pod"}` + "\n", 6, 0},
		{"a scalar glued to the separator", pod + "---x\n" + pod, 6, 0},
		{"a separator with a tab and content", "---\t" + "kind: Pod\n", 1, 0},
		{"content after an end marker", pod + "...\n\n# c\n" + pod, 9, 0},
		{"content on the end marker's line", pod + "... kind: Pod\n", 6, 0},
		{"content after two end markers", pod + "...\n...\nkind: Pod\n", 8, 0},
		{"an end marker then a new document", pod + "...\n---\n" + pod, 0, 2},
		{"an end marker then comments", pod + "... # end\n\n# more\n\r\n", 0, 1},
		{"a separator with a comment", "--- # first\n" + pod + "---\t# second\n" + pod, 0, 2},
		{"markers indented in a value", pod + "  annotations:\n    note: |\n      ...\n      --- x\n", 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, _, err := decodeFile("m.yaml", []byte(c.data))
			if c.line == 0 {
				if err != nil || len(objs) != c.objs {
					t.Fatalf("got %d objects and error %v, want %d objects", len(objs), err, c.objs)
				}
				return
			}
			var ie *inputError
			if !errors.As(err, &ie) || ie.at.line != c.line {
				t.Fatalf("got %d objects and error %v, want an error on line %d", len(objs), err, c.line)
			}
			t.Log(err)
		})
	}
}
