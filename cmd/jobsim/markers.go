package main

import (
	"bytes"
	"fmt"
)

// checkMarkers refuses the two uses of YAML's document markers whose
// content the readers would drop without a word, so that no object of the
// file goes unread:
//
//   - content on a "---" line ("--- {kind: Pod, ...}"): YAML allows it, but
//     splitDocuments cuts at the line and so would drop it, and
//     k8s.io/apimachinery's reader, kubectl's, refuses it ("invalid Yaml
//     document separator"); a line that starts with "---" followed by
//     anything but blanks and a comment is refused the same way;
//   - content after a "..." end marker and before the next "---":
//     sigs.k8s.io/yaml reads the first document of its input and
//     ignores the rest, and so does apimachinery's reader (kubectl
//     applies the object before the marker and nothing after it).
//
// A "..." followed only by blank lines, comments or a "---" is a
// well-formed end of a document, and is read as before. Markers count at
// the left margin only, where YAML forbids them inside any value.
func checkMarkers(file string, data []byte) error {
	endedAt := 0 // the line of the "..." that ended the current document
	n := 0
	for off := 0; off < len(data); {
		n++
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		line := bytes.TrimSuffix(data[off:end], []byte("\r"))
		off = next
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
			if c := markerContent(rest); c != "" {
				return errorAt(source{file: file, line: n, item: -1},
					"content after \"---\" on the document separator line (%s): start the document on the next line (kubectl refuses this line too)", c)
			}
			endedAt = 0
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("...")); ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t') {
			if c := markerContent(rest); c != "" {
				return errorAt(source{file: file, line: n, item: -1},
					"content after the document end marker \"...\" (%s) would be ignored: put it in a document of its own, after a \"---\" line", c)
			}
			if endedAt == 0 {
				endedAt = n
			}
			continue
		}
		if endedAt > 0 && markerContent(line) != "" {
			return errorAt(source{file: file, line: n, item: -1},
				"content after the document end marker \"...\" on line %d would be ignored (YAML readers, kubectl's included, stop at the marker): start a new document with \"---\" or remove the marker", endedAt)
		}
	}
	return nil
}

// markerContent returns what follows a marker on its line, or a line
// after an end marker, once blanks and a comment are left out: empty when
// there is nothing to read.
func markerContent(rest []byte) string {
	t := bytes.TrimSpace(rest)
	if len(t) == 0 || t[0] == '#' {
		return ""
	}
	const most = 40
	if len(t) > most {
		return fmt.Sprintf("%s...", t[:most])
	}
	return string(t)
}
