package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// A List as `kubectl get pods -o yaml` prints it can hold 100,000 pods in
// 50 MB. Converting the whole document to JSON at once builds a generic
// tree of every value, about thirty times the size of the text, before a
// single pod is decoded. listItems instead cuts such a List into its items
// by their lines and reads one item at a time, so that what stays is the
// text and the decoded objects.
//
// The cut is made on text, so it is only trusted where YAML cannot read the
// lines otherwise (and only in documents whose lines end in "\n" or
// "\r\n", not at YAML's other line breaks); anything else returns ok false and the document is read
// whole as before (decodeDocument), which also gives every syntax error
// its line:
//
//   - "items:" alone at the left margin, then items that each start with
//     "- " (or a lone "-") at one indentation k, their other lines blank,
//     comments or indented at least as far as the item's content (what
//     follows the "-"); the first line that is none of these, at the left
//     margin, ends the items;
//   - the lines before "items:" must convert on their own, and the rest of
//     the document without the items too (with no second "items" key): a
//     quoted scalar or flow collection left open before "items:" could
//     otherwise swallow the items, in a way that the lines after them close;
//   - each item must convert on its own. An item whose quoted scalar runs
//     on into the next item's "- " line (the YAML parser allows that) is
//     left open at its end, and an alias to an anchor in another item is
//     unknown: both are errors, and the document is read whole.

// listCut is a List document cut into its items.
type listCut struct {
	header []byte     // the document without its items
	items  []itemSpan // the items in order
	indent int        // the columns before each item's "-"
}

// itemSpan is one item of a List: its text in the document (from the
// first line's start, "- " included, to the next item) and its line in
// the file.
type itemSpan struct {
	start, end int
	line       int
}

// cutList cuts doc at its items, or returns ok false when the document is
// not laid out as cutList's comment says.
func cutList(doc document) (c listCut, ok bool) {
	text := doc.text
	if hasOtherLineBreaks(text) {
		return c, false
	}
	var pre, post []byte
	state := 0 // 0 before "items:", 1 before the first item, 2 in the items, 3 after them
	prefix := []byte(nil)
	content := -1 // the column of the current item's content, -1 until known
	n := 0
	for off := 0; off < len(text); {
		n++
		end, next := len(text), len(text)
		if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		l := bytes.TrimRight(text[off:end], " \t\r")
		t := bytes.TrimLeft(l, " ")
		blank := len(t) == 0 || t[0] == '#'
		switch state {
		case 0:
			if string(l) == "items:" {
				pre = text[:off]
				state = 1
			}
		case 1:
			if blank {
				break
			}
			if t[0] != '-' || (len(t) > 1 && t[1] != ' ') {
				return c, false // items: with no block sequence
			}
			c.indent = len(l) - len(t)
			prefix = l[:c.indent+1]
			c.items = append(c.items, itemSpan{start: off, line: doc.line + n - 1})
			content = contentColumn(l, c.indent)
			state = 2
		case 2:
			ind := len(l) - len(t)
			switch {
			case blank:
			case ind > c.indent:
				// The item's own lines start at its content's column:
				// a line between the "-" and that column reads differently
				// alone than in the List.
				if content < 0 {
					content = ind
				} else if ind < content {
					return c, false
				}
			case ind == c.indent && bytes.HasPrefix(l, prefix) && (len(l) == len(prefix) || l[len(prefix)] == ' '):
				c.items[len(c.items)-1].end = off
				c.items = append(c.items, itemSpan{start: off, line: doc.line + n - 1})
				content = contentColumn(l, c.indent)
			case ind == 0:
				c.items[len(c.items)-1].end = off
				post = text[off:]
				state = 3
			default:
				return c, false // a line the cut cannot place
			}
		}
		if state == 3 {
			break
		}
		off = next
	}
	switch state {
	case 0, 1:
		return c, false
	case 2:
		c.items[len(c.items)-1].end = len(text)
	}
	// The lines before "items:" must stand on their own.
	if len(bytes.TrimSpace(pre)) > 0 {
		if _, err := yamlToJSONText(pre); err != nil {
			return c, false
		}
	}
	c.header = append(append(make([]byte, 0, len(pre)+len(post)), pre...), post...)
	return c, true
}

// hasOtherLineBreaks reports whether text breaks lines otherwise than
// with "\n" or "\r\n": YAML also breaks them at a lone "\r" and at NEL,
// LS and PS, which the cut, reading lines at "\n", would not see.
func hasOtherLineBreaks(text []byte) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 == len(text) || text[i+1] != '\n' {
				return true
			}
		case 0xC2:
			if i+1 < len(text) && text[i+1] == 0x85 {
				return true
			}
		case 0xE2:
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9) {
				return true
			}
		}
	}
	return false
}

// contentColumn is the column of what follows the "-" at column indent on
// an item's first line, or -1 when nothing (or a comment) follows it.
func contentColumn(l []byte, indent int) int {
	rest := l[indent+1:]
	t := bytes.TrimLeft(rest, " ")
	if len(t) == 0 || t[0] == '#' {
		return -1
	}
	return indent + 1 + len(rest) - len(t)
}

// itemText writes item's text into buf as a document of its own: the
// first line's "-" becomes a blank, so that the item's mapping keeps its
// indentation.
func (c listCut) itemText(doc document, it itemSpan, buf []byte) []byte {
	buf = append(buf[:0], doc.text[it.start:it.end]...)
	buf[c.indent] = ' '
	return buf
}

// decodeCutList reads a List that cutList cut. It returns ok false when
// the header or an item does not convert alone; the caller then reads the
// document whole. Errors in decoding an item (an unknown field, a wrong
// type) are the List's errors and name the item's line.
func decodeCutList(file string, doc document, c listCut) (objs []object, ok bool, err error) {
	hjs, herr := yamlToJSONText(c.header)
	if herr != nil {
		return nil, false, nil
	}
	var header map[string]json.RawMessage
	if json.Unmarshal(hjs, &header) != nil {
		return nil, false, nil
	}
	if _, twice := header["items"]; twice {
		return nil, false, nil
	}
	var tm typeMeta
	if json.Unmarshal(hjs, &tm) != nil || !isListKind(tm.Kind) {
		return nil, false, nil
	}
	// Items are independent: they are read on every core, each worker
	// taking a contiguous run of them, and judged in order afterwards, so
	// that the outcome is the one a reading in order gives.
	type result struct {
		obj    object
		unread bool // the item does not convert alone
		err    error
		nested bool // a List inside the List
	}
	res := make([]result, len(c.items))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(c.items)/64))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(c.items)/workers, (w+1)*len(c.items)/workers
		wg.Go(func() {
			var buf []byte
			for i := lo; i < hi; i++ {
				it := c.items[i]
				buf = c.itemText(doc, it, buf)
				js, jerr := yamlToJSONText(buf)
				if jerr != nil {
					res[i].unread = true
					// A later item cannot change the outcome: the
					// document is read whole.
					return
				}
				got, err := decodeObject(source{file: file, line: it.line, item: i}, document{text: buf, line: it.line}, js)
				switch {
				case err != nil:
					res[i].err = err
				case len(got) != 1:
					res[i].nested = true
				default:
					res[i].obj = got[0]
				}
			}
		})
	}
	wg.Wait()
	out := make([]object, 0, len(c.items))
	for i, r := range res {
		switch {
		case r.unread:
			return nil, false, nil
		case r.err != nil:
			return nil, true, r.err
		case r.nested:
			return nil, true, errorAt(source{file: file, line: c.items[i].line, item: i}, "a List inside a List is not supported")
		}
		out = append(out, r.obj)
	}
	return out, true, nil
}
