package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeFile feeds jobsim's reader arbitrary files. The splitter must
// lose nothing (its documents and separator lines put back together are the
// file, and each starts on the line a plain line-by-line reading gives),
// and reading must end in objects or a located error, never a panic. The
// lines it gives objects and List items lie inside the file.
func FuzzDecodeFile(f *testing.F) {
	for _, glob := range []string{"../../testdata/jobs/*.yaml", "../../testdata/jobs/plan/*/*.yaml", "testdata/bad/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add(podList(3))
	f.Add([]byte("---\n---\r\n--- # c\n---x\n ---\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Pod, metadata: {name: a}}\n  -\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: \"a\n- b\n    c\"}\n"))
	f.Add([]byte("apiVersion: v1\nnote: \"x\nitems:\n- kind: Pod\ny\"\nkind: List\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplit(t, data)
		objs, docs, err := decodeFile("fuzz.yaml", data)
		checkCut(t, data, objs, docs, err)
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var ie *inputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) names no file and line", err, err)
			}
			if ie.at.line < 1 || ie.at.line > lines {
				t.Fatalf("error at line %d of a %d-line file: %v", ie.at.line, lines, err)
			}
			return
		}
		prev := 0
		for _, o := range objs {
			kinds := 0
			for _, set := range []bool{o.job != nil, o.pod != nil} {
				if set {
					kinds++
				}
			}
			if kinds != 1 {
				t.Fatalf("object at %s holds %d objects, want one", o.at, kinds)
			}
			if o.at.line < 1 || o.at.line > lines {
				t.Fatalf("object at line %d of a %d-line file", o.at.line, lines)
			}
			if o.at.line < prev {
				t.Fatalf("objects out of order: line %d after %d", o.at.line, prev)
			}
			prev = o.at.line
		}
	})
}

// checkCut compares what decodeFile read, Lists cut into their items, with
// reading every document whole: the same objects or an error on both sides.
// Item lines may differ only where the whole reading's layout heuristic gave
// up and used the List's own line.
func checkCut(t *testing.T, data []byte, objs []object, docs int, err error) {
	wobjs, wdocs, werr := decodeFileCut("fuzz.yaml", data, false)
	if (err == nil) != (werr == nil) {
		t.Fatalf("cut Lists: error %v; read whole: error %v", err, werr)
	}
	if err != nil {
		return
	}
	if docs != wdocs || len(objs) != len(wobjs) {
		t.Fatalf("cut Lists: %d documents, %d objects; read whole: %d, %d", docs, len(objs), wdocs, len(wobjs))
	}
	for i, o := range objs {
		w := wobjs[i]
		if !reflect.DeepEqual(o.job, w.job) || !reflect.DeepEqual(o.pod, w.pod) {
			t.Fatalf("object %d at %s differs from the whole reading's at %s", i, o.at, w.at)
		}
		if o.at.item != w.at.item || (o.at.line != w.at.line && o.at.item < 0) {
			t.Fatalf("object %d at %s, read whole at %s", i, o.at, w.at)
		}
	}
}

// checkSplit compares splitDocuments with a plain reading of the file line
// by line.
func checkSplit(t *testing.T, data []byte) {
	docs := splitDocuments(data)
	var want []int // the line each document starts on
	want = append(want, 1)
	var rebuilt []byte
	text := string(data)
	n := 0
	for len(text) > 0 {
		n++
		line, rest, _ := strings.Cut(text, "\n")
		if isSeparator([]byte(strings.TrimSuffix(line, "\r"))) {
			want = append(want, n+1)
		}
		text = rest
	}
	if len(docs) != len(want) {
		t.Fatalf("%d documents, want %d", len(docs), len(want))
	}
	for i, d := range docs {
		if d.line != want[i] {
			t.Fatalf("document %d starts on line %d, want %d", i, d.line, want[i])
		}
		rebuilt = append(rebuilt, d.text...)
		if i < len(docs)-1 {
			// The separator line lies between this document and the next;
			// as the file's last line it may have no newline.
			start := len(rebuilt)
			end := len(data)
			if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
				end = start + j + 1
			}
			if !isSeparator(bytes.TrimSuffix(bytes.TrimSuffix(data[start:end], []byte("\n")), []byte("\r"))) {
				t.Fatalf("document %d is followed by %q, not a separator line", i, data[start:end])
			}
			rebuilt = append(rebuilt, data[start:end]...)
		}
	}
	if !bytes.Equal(rebuilt, data) {
		t.Fatalf("documents and separators do not make up the file")
	}
	for _, d := range docs {
		n := bytes.Count(d.text, []byte("\n"))
		for _, l := range sequenceItemLines(d, "items", 3) {
			if l < d.line || l > d.line+n {
				t.Fatalf("list item at line %d, outside its document (lines %d to %d)", l, d.line, d.line+n)
			}
		}
	}
}
