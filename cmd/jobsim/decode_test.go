package main

import (
	"slices"
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
		if got := listItemLines(document{text: []byte(c.text), line: 1}, len(c.want)); !slices.Equal(got, c.want) {
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
