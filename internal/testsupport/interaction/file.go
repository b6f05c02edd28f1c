// Package interaction reads and runs the multi-sync scenario files under
// testdata/interactions, in the manner of etcd raft's interaction tests: a
// file is a sequence of commands (a Job is created, the controller syncs
// and carries its plan out, pods start, succeed or fail, time passes, the
// informer catches up, the controller syncs again), each followed by the
// output it gave, which the tests pin and rewrite with -update.
//
// The library's test (jobsync/interaction_test.go) compares the outputs;
// the conformance module runs every sync of the same files through
// upstream's Job controller as well. It is test support, not an API.
package interaction

import (
	"fmt"
	"strings"
)

// Separator ends a command's input and starts its output.
const Separator = "----"

// Directive is one command of a file with its input and output.
type Directive struct {
	// Leading is the text before the command: blank lines and comments,
	// kept verbatim for rewriting.
	Leading string
	// Line is the file line of the command, for error messages.
	Line int
	// Command is the command name; Args its space-separated arguments.
	Command string
	Args    []string
	// Input is the text between the command and the separator (YAML for
	// the commands that take it), each line ending in a newline.
	Input string
	// Output is the text after the separator, up to the first blank line,
	// each line ending in a newline.
	Output string
}

// File is a parsed interaction file.
type File struct {
	Directives []Directive
	// Trailing is the text after the last directive.
	Trailing string
}

// Parse reads an interaction file: any number of directives, each
//
//	command arg key=value ...
//	optional input lines
//	----
//	output lines, up to a blank line or the end of the file
//
// with blank lines and comment lines (first non-blank character '#')
// between them.
func Parse(text string) (File, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var f File
	var leading strings.Builder
	for i := 0; i < len(lines); {
		line := strings.TrimRight(lines[i], "\n")
		if trimmed := strings.TrimSpace(line); trimmed == "" || strings.HasPrefix(trimmed, "#") {
			leading.WriteString(withNewline(lines[i]))
			i++
			continue
		}
		d := Directive{Leading: leading.String(), Line: i + 1}
		leading.Reset()
		fields := strings.Fields(line)
		d.Command = fields[0]
		if len(fields) > 1 {
			d.Args = fields[1:]
		}
		i++
		var input strings.Builder
		for ; i < len(lines) && strings.TrimRight(lines[i], "\n") != Separator; i++ {
			input.WriteString(withNewline(lines[i]))
		}
		if i == len(lines) {
			return File{}, fmt.Errorf("line %d: %q has no %q line after it", d.Line, line, Separator)
		}
		i++ // the separator
		d.Input = input.String()
		var output strings.Builder
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			output.WriteString(withNewline(lines[i]))
		}
		d.Output = output.String()
		f.Directives = append(f.Directives, d)
	}
	f.Trailing = leading.String()
	return f, nil
}

// Rewrite returns the file's text with each directive's output replaced by
// outputs[i] (each line of which must end in a newline).
func (f File) Rewrite(outputs []string) string {
	var b strings.Builder
	for i, d := range f.Directives {
		b.WriteString(d.Leading)
		b.WriteString(d.Command)
		for _, a := range d.Args {
			b.WriteString(" " + a)
		}
		b.WriteString("\n")
		b.WriteString(d.Input)
		b.WriteString(Separator + "\n")
		b.WriteString(outputs[i])
	}
	b.WriteString(f.Trailing)
	return b.String()
}

// Arg returns the value of key=value among the directive's arguments.
func (d Directive) Arg(key string) (string, bool) {
	for _, a := range d.Args {
		if k, v, ok := strings.Cut(a, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Words returns the arguments that are not key=value pairs.
func (d Directive) Words() []string {
	var out []string
	for _, a := range d.Args {
		if !strings.Contains(a, "=") {
			out = append(out, a)
		}
	}
	return out
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
