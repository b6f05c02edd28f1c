package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// source says where an object was read: the file, the line of the object's
// first line and, inside a List, the item. Every input error names one, so
// that the user can jump to the problem in an editor.
type source struct {
	file string
	line int
	item int // index in a List's items, or -1
}

func (s source) String() string {
	if s.item >= 0 {
		return fmt.Sprintf("%s:%d (items[%d])", s.file, s.line, s.item)
	}
	return fmt.Sprintf("%s:%d", s.file, s.line)
}

// inputError is a problem with what the user gave us, located in a file.
// It is a failure (exit 1), not a usage error.
type inputError struct {
	at  source
	msg string
}

func (e *inputError) Error() string { return e.at.String() + ": " + e.msg }

func errorAt(at source, format string, args ...any) error {
	return &inputError{at: at, msg: fmt.Sprintf(format, args...)}
}

// object is one Job or Pod read from the input.
type object struct {
	at  source
	job *batchv1.Job
	pod *corev1.Pod
}

// typeMeta is read first to dispatch on kind before the strict decode.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// readFiles reads every object of every file, in the order given. "-" is
// standard input, so that kubectl's output can be piped in.
func readFiles(paths []string, stdin io.Reader) ([]object, error) {
	var all []object
	for _, p := range paths {
		var data []byte
		var err error
		if p == "-" {
			data, err = io.ReadAll(stdin)
			p = "<stdin>"
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, err
		}
		objs, docs, err := decodeFile(p, data)
		if err != nil {
			return nil, err
		}
		if docs == 0 {
			// An empty List is fine (a Job without pods yet); an empty file
			// is more likely the wrong file.
			return nil, errorAt(source{file: p, line: 1, item: -1}, "no Kubernetes object in the file")
		}
		all = append(all, objs...)
	}
	return all, nil
}

// document is one YAML document of a multi-document file and the line of
// the file it starts on.
type document struct {
	text []byte
	line int
}

// splitDocuments cuts a file at its "---" separator lines. sigs.k8s.io/yaml
// reads one document only and reports lines relative to it, so keeping the
// offset here is what lets errors name the line of the file. Documents are
// slices of data, whatever the length of their lines: nothing is dropped.
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine := 0, 1
	n := 0
	for off := 0; off < len(data); {
		n++
		end := len(data)
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		line := bytes.TrimSuffix(data[off:end], []byte("\r")) // files saved on Windows
		if isSeparator(line) {
			docs = append(docs, document{text: data[start:off], line: startLine})
			start, startLine = next, n+1
		}
		off = next
	}
	return append(docs, document{text: data[start:], line: startLine})
}

// isSeparator reports whether a line separates two YAML documents: "---"
// alone or followed by a blank and anything (a comment).
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t')
}

// firstContentLine skips the blank and comment lines at the start of a
// document, so that an object's line is the line of its first key. It reads
// only as far as that line.
func firstContentLine(doc document) int {
	text := doc.text
	for i := 0; len(text) > 0; i++ {
		l, rest, _ := bytes.Cut(text, []byte("\n"))
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return doc.line + i
		}
		text = rest
	}
	return doc.line
}

var yamlLine = regexp.MustCompile(`^(?:error converting YAML to JSON: )?yaml: line (\d+): (.*)$`)

// decodeFile returns the objects of a file and the number of documents
// that held something (an object, or a List, maybe empty).
func decodeFile(file string, data []byte) ([]object, int, error) {
	return decodeFileCut(file, data, true)
}

// decodeFileCut is decodeFile; with cut false, every document is read whole
// (what the tests compare the cut Lists with).
func decodeFileCut(file string, data []byte, cut bool) ([]object, int, error) {
	if err := checkMarkers(file, data); err != nil {
		return nil, 0, err
	}
	var out []object
	docs := 0
	for _, doc := range splitDocuments(data) {
		if c, ok := cutList(doc); cut && ok {
			objs, ok, err := decodeCutList(file, doc, c)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				docs++
				out = append(out, objs...)
				continue
			}
		}
		objs, empty, err := decodeDocument(file, doc)
		if err != nil {
			return nil, 0, err
		}
		if !empty {
			docs++
		}
		out = append(out, objs...)
	}
	return out, docs, nil
}

// decodeDocument reads one document whole: its YAML converted to JSON at
// once, then decoded. It reports whether the document held nothing.
func decodeDocument(file string, doc document) (objs []object, empty bool, err error) {
	js, err := yamlToJSON(file, doc)
	if err != nil {
		return nil, false, err
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, true, nil // an empty document, such as a trailing "---"
	}
	at := source{file: file, line: firstContentLine(doc), item: -1}
	objs, err = decodeObject(at, doc, js)
	return objs, false, err
}

// yamlToJSON converts one document, locating a syntax error in the file.
// Duplicate keys are errors: of two values, one would be dropped silently.
func yamlToJSON(file string, doc document) ([]byte, error) {
	js, err := yamlToJSONText(doc.text)
	if err == nil {
		return js, nil
	}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		// The parser may name the line after the last one (an error found
		// at the end of the input): the document's last line is meant.
		last := doc.line + max(0, lineCount(doc.text)-1)
		return nil, errorAt(source{file: file, line: min(max(doc.line+n-1, doc.line), last), item: -1}, "invalid YAML: %s", m[2])
	}
	return nil, errorAt(source{file: file, line: doc.line, item: -1}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// yamlToJSONText converts YAML text to JSON, refusing duplicate keys.
func yamlToJSONText(text []byte) ([]byte, error) { return yaml.YAMLToJSONStrict(text) }

// isListKind reports whether kind is a List of the kinds jobsim reads.
func isListKind(kind string) bool {
	switch kind {
	case "List", "JobList", "PodList":
		return true
	}
	return false
}

// lineCount is the number of lines of text, the last one with or without
// its newline.
func lineCount(text []byte) int {
	n := bytes.Count(text, []byte("\n"))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// decodeObject decodes one document: a Job, a Pod, or a List of them (what
// `kubectl get ... -o yaml` prints for several objects).
func decodeObject(at source, doc document, js []byte) ([]object, error) {
	var tm typeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, errorAt(at, "not a Kubernetes object: want a mapping with apiVersion and kind")
	}
	switch {
	case tm.Kind == "":
		return nil, errorAt(at, "missing field kind: want Job, Pod or List")
	case isListKind(tm.Kind):
		return decodeList(at, doc, js)
	case tm.Kind == "Job":
		if tm.APIVersion != "batch/v1" {
			return nil, errorAt(at, "Job has apiVersion %q: want batch/v1", tm.APIVersion)
		}
		job := &batchv1.Job{}
		if err := strictDecode(js, job); err != nil {
			return nil, decodeError(at, doc, "Job", err)
		}
		if err := checkTimes(at, doc, "Job", js, job); err != nil {
			return nil, err
		}
		return []object{{at: at, job: job}}, nil
	case tm.Kind == "Pod":
		if tm.APIVersion != "v1" {
			return nil, errorAt(at, "Pod has apiVersion %q: want v1", tm.APIVersion)
		}
		pod := &corev1.Pod{}
		if err := strictDecode(js, pod); err != nil {
			return nil, decodeError(at, doc, "Pod", err)
		}
		if err := checkTimes(at, doc, "Pod", js, pod); err != nil {
			return nil, err
		}
		return []object{{at: at, pod: pod}}, nil
	default:
		return nil, errorAt(at, "unknown kind %q: jobsim reads Job (batch/v1), Pod (v1) and List", tm.Kind)
	}
}

func decodeList(at source, doc document, js []byte) ([]object, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &list); err != nil {
		return nil, errorAt(at, "List: %s", cleanJSONError(err))
	}
	lines := sequenceItemLines(doc, "items", len(list.Items))
	var out []object
	for i, item := range list.Items {
		itemAt := source{file: at.file, line: lines[i], item: i}
		objs, err := decodeObject(itemAt, document{text: nil, line: lines[i]}, item)
		if err != nil {
			return nil, err
		}
		if len(objs) != 1 {
			return nil, errorAt(itemAt, "a List inside a List is not supported")
		}
		out = append(out, objs...)
	}
	return out, nil
}

// sequenceItemLines finds the line of each of the n items of the sequence
// under key as kubectl prints a List's items ("items:" at the left margin,
// each item starting with "- " at one indentation). When the layout is
// anything else, every item gets the line of the document itself: less
// precise, never wrong.
func sequenceItemLines(doc document, key string, n int) []int {
	var found []int
	inItems := false
	prefix := ""
	text := doc.text
	for i := 0; len(text) > 0; i++ {
		lb, rest, _ := bytes.Cut(text, []byte("\n"))
		text = rest
		l := string(lb)
		switch {
		case !inItems:
			inItems = strings.TrimRight(l, " ") == key+":"
		case prefix == "":
			t := strings.TrimLeft(l, " ")
			if strings.HasPrefix(t, "- ") || t == "-" {
				prefix = l[:len(l)-len(t)] + "-"
				found = append(found, doc.line+i)
			}
		case strings.HasPrefix(l, prefix+" ") || l == prefix:
			found = append(found, doc.line+i)
		case len(l) > 0 && l[0] != ' ' && l[0] != '#' && !strings.HasPrefix(l, prefix):
			inItems = false
		}
		if !inItems && prefix != "" {
			break
		}
	}
	if len(found) == n {
		return found
	}
	lines := make([]int, n)
	first := firstContentLine(doc)
	for i := range lines {
		lines[i] = first
	}
	return lines
}

// strictDecode rejects unknown fields: in a hand-written manifest an unknown
// field is nearly always a typo (completion: for completions:) that would
// otherwise be dropped without a word.
func strictDecode(js []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// decodeError turns a JSON decoding error into one located in the file. An
// unknown field's key is looked up in the document's text to find its line.
func decodeError(at source, doc document, kind string, err error) error {
	msg := cleanJSONError(err)
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		key := m[1]
		if i := strings.LastIndex(key, "."); i >= 0 {
			key = key[i+1:]
		}
		if line := findKeyLine(doc, key); line > 0 {
			at.line = line
		}
		hint := "a typo, or a field that Kubernetes v1.36 does not have"
		if kind == "script" {
			hint = "a script has default, pods and jobChanges; a pod rule pod, index, attempt and behavior; a behavior startDelay, runTime, exitCode, container, disruption, disruptionReason, restarts, forever and shutdown"
		}
		return errorAt(at, "%s has unknown field %q (%s)", kind, m[1], hint)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		key := te.Field[strings.LastIndex(te.Field, ".")+1:]
		if line := findKeyLine(doc, key); line > 0 {
			at.line = line
		}
	}
	return errorAt(at, "%s: %s", kind, msg)
}

func findKeyLine(doc document, key string) int {
	for i, l := range strings.Split(string(doc.text), "\n") {
		t := strings.TrimLeft(strings.TrimLeft(l, " "), "- ")
		if strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`) {
			return doc.line + i
		}
	}
	return 0
}

func cleanJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
