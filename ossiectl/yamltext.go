package ossiectl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ossie-dev/ossie/compiler"
)

// yamlText edits a YAML or JSON file as text, at the places the
// compiler's reader (compiler.ReadNode) records for its values, so that
// the commands that change a user's file (migrate, enrich) keep every
// byte they do not change: comments, quoting, blank lines, JSON layout.
// Issue 25: editing through a comment-keeping syntax tree (goccy/go-yaml)
// cost several hundred MB for a document at the limits; locating values
// on the text costs a few slices of offsets.
//
// Values reached through an alias or a merge key are not edited (the text
// edited would be the anchor's, shared by every alias): the reader puts
// them where the anchor is written, before the key that uses them, and
// the locating functions refuse such a place with errShared.
type yamlText struct {
	data  []byte
	lines []int // byte offset of the start of each line
	edits []textEdit
	ascii bool            // data is all ASCII
	runes map[int][]int32 // runeStarts of the lines read, when not
}

// textEdit replaces data[start:end] by text; edits at one offset apply in
// the order they were made.
type textEdit struct {
	start, end int
	text       string
}

// errShared is the refusal of a value written through an alias or merge
// key, or with an anchor another value may use.
var errShared = errors.New("written through an anchor, alias or merge key; edit it by hand")

func newYAMLText(data []byte) *yamlText {
	t := &yamlText{data: data, lines: make([]int, 1, bytes.Count(data, []byte("\n"))+1), runes: map[int][]int32{}}
	t.ascii = utf8.RuneCount(data) == len(data)
	for i, c := range data {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// offset is the byte offset of a reader position (1-based line, column
// counted in characters as libyaml counts them). A line of ASCII text
// maps columns to bytes directly; another gets a table of where each
// character starts, made once (a JSON document may be one long line).
func (t *yamlText) offset(p compiler.Position) (int, bool) {
	if p.Line < 1 || p.Line > len(t.lines) || p.Column < 1 {
		return 0, false
	}
	start, end := t.lines[p.Line-1], t.lineEnd(p.Line-1)
	if !t.ascii {
		starts, ok := t.runes[p.Line-1]
		if !ok {
			starts = runeStarts(t.data[start:end])
			t.runes[p.Line-1] = starts
		}
		if starts != nil {
			if p.Column > len(starts) {
				return 0, false
			}
			return start + int(starts[p.Column-1]), true
		}
	}
	if off := start + p.Column - 1; off <= end {
		return off, true
	}
	return 0, false
}

// runeStarts is where each character of line starts, and one more entry
// for its end; nil for ASCII text.
func runeStarts(line []byte) []int32 {
	if utf8.RuneCount(line) == len(line) {
		return nil
	}
	starts := make([]int32, 0, utf8.RuneCount(line)+1)
	for i := range string(line) {
		starts = append(starts, int32(i))
	}
	return append(starts, int32(len(line)))
}

// lineOf is the 0-based line holding offset off.
func (t *yamlText) lineOf(off int) int {
	return sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
}

// lineEnd is the offset of the line break ending line i (len(data) for
// the last line).
func (t *yamlText) lineEnd(i int) int {
	if i+1 < len(t.lines) {
		return t.lines[i+1] - 1
	}
	return len(t.data)
}

// indent is the number of spaces starting line i.
func (t *yamlText) indent(i int) int {
	n := 0
	for off := t.lines[i]; off < len(t.data) && t.data[off] == ' '; off++ {
		n++
	}
	return n
}

// blank reports a line that is empty or holds only a comment.
func (t *yamlText) blank(i int) (empty, comment bool) {
	rest := bytes.TrimLeft(t.data[t.lines[i]:t.lineEnd(i)], " \t\r")
	return len(rest) == 0, len(rest) > 0 && rest[0] == '#'
}

// lastLine is the last line of a block value that starts on line first
// and belongs to a key indented by keyIndent: the lines after first that
// are indented more (or, for a sequence written at the key's own
// indentation, that start with "- "), up to the first that is not.
// Comment lines count only inside a block scalar (blockScalar), where
// they are text.
func (t *yamlText) lastLine(first, keyIndent int, seqAtIndent, blockScalar bool) int {
	last := first
	for i := first + 1; i < len(t.lines); i++ {
		empty, comment := t.blank(i)
		if empty {
			continue
		}
		ind := t.indent(i)
		switch {
		case ind > keyIndent && (!comment || blockScalar):
			last = i
		case ind > keyIndent:
		case ind == keyIndent && seqAtIndent && !comment && isDashLine(t.data[t.lines[i]+ind:t.lineEnd(i)]):
			last = i
		default:
			return last
		}
	}
	return last
}

func isDashLine(rest []byte) bool {
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\r')
}

// matching is the offset just past the bracket closing the flow
// collection that opens at off, skipping quoted text and comments.
func (t *yamlText) matching(off int) (int, bool) {
	depth := 0
	for i := off; i < len(t.data); i++ {
		switch c := t.data[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		case '"', '\'':
			end, ok := t.quotedEnd(i)
			if !ok {
				return 0, false
			}
			i = end - 1
		case '#':
			if i > 0 && (t.data[i-1] == ' ' || t.data[i-1] == '\t' || t.data[i-1] == '\n') {
				i = t.lineEnd(t.lineOf(i)) - 1
			}
		}
	}
	return 0, false
}

// quotedEnd is the offset just past the quoted scalar opening at off.
func (t *yamlText) quotedEnd(off int) (int, bool) {
	q := t.data[off]
	for i := off + 1; i < len(t.data); i++ {
		switch c := t.data[i]; {
		case q == '"' && c == '\\':
			i++
		case c == q && q == '\'' && i+1 < len(t.data) && t.data[i+1] == '\'':
			i++
		case c == q:
			return i + 1, true
		}
	}
	return 0, false
}

// skipProperties moves past a value's tag (`!!str`), which does not
// change where its text is; an anchor (`&a`) makes the value shared.
func (t *yamlText) skipProperties(off int) (int, error) {
	for off < len(t.data) && (t.data[off] == '!' || t.data[off] == '&') {
		if t.data[off] == '&' {
			return 0, errShared
		}
		for off < len(t.data) && !isSpace(t.data[off]) {
			off++
		}
		for off < len(t.data) && isSpace(t.data[off]) {
			off++
		}
	}
	return off, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// flowAt reports whether the collection whose text starts at off is
// written in flow style ({...} or [...]).
func (t *yamlText) flowAt(off int) bool {
	return off < len(t.data) && (t.data[off] == '{' || t.data[off] == '[')
}

// start is the offset where the collection n is written (its `{` or
// `[`, or the first key or dash of a block collection); errShared when
// it carries an anchor.
func (t *yamlText) start(n compiler.Node) (int, error) {
	off, ok := t.offset(n.Pos())
	if !ok {
		return 0, errShared
	}
	return t.skipProperties(off)
}

// owned is the value of key in the mapping m when it is written there,
// else the zero Node (no such key, or a value reached through an alias
// or a merge key: the reader places those where the anchor is written,
// before the key).
func owned(m compiler.Node, key string) compiler.Node {
	v, keyPos, ok := m.Get(key)
	if !ok || before(keyPos, m.Pos()) || !v.IsNull() && before(v.Pos(), keyPos) {
		return compiler.Node{}
	}
	return v
}

// ownedItems are the items of the sequence s, each the zero Node when it
// is written elsewhere (an alias: at or before the item before it).
func ownedItems(s compiler.Node) []compiler.Node {
	items := s.Items()
	prev := s.Pos()
	for i, it := range items {
		if i > 0 && !before(prev, it.Pos()) || before(it.Pos(), s.Pos()) {
			items[i] = compiler.Node{}
			continue
		}
		prev = it.Pos()
	}
	return items
}

// before reports whether a is written before b.
func before(a, b compiler.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// entry is one `key: value` of a mapping, located in the text.
type entry struct {
	key, colon int // offsets of the key and of its `:`
	value, end int // the value's text (after a tag); value == end when it is empty
	keyIndent  int // the indentation of the key's mapping (block style)
	flow       bool
}

// find locates key in the mapping m: ok is false when m has no such key;
// errShared when the entry or its value is written elsewhere (merged or
// aliased).
func (t *yamlText) find(m compiler.Node, key string) (entry, bool, error) {
	v, keyPos, ok := m.Get(key)
	if !ok {
		return entry{}, false, nil
	}
	mStart, err := t.start(m)
	if err != nil {
		return entry{}, true, err
	}
	keyOff, ok := t.offset(keyPos)
	if !ok || keyOff < mStart {
		return entry{}, true, errShared
	}
	e := entry{key: keyOff, flow: t.flowAt(mStart), keyIndent: keyOff - t.lines[t.lineOf(keyOff)]}
	if e.colon, err = t.colon(keyOff); err != nil {
		return e, true, err
	}
	e.value, e.end, err = t.valueRange(e, v)
	return e, true, err
}

// colon is the offset of the `:` ending the key written at off.
func (t *yamlText) colon(off int) (int, error) {
	i := off
	if c := t.data[off]; c == '"' || c == '\'' {
		end, ok := t.quotedEnd(off)
		if !ok {
			return 0, fmt.Errorf("internal: unterminated key at byte %d", off)
		}
		i = end
	}
	for ; i < len(t.data) && t.data[i] != '\n'; i++ {
		if t.data[i] == ':' {
			return i, nil
		}
	}
	return 0, fmt.Errorf("internal: no `:` after the key at byte %d", off)
}

// valueRange is where the value v of the entry e is written: from its
// first character after a tag to just past its last (a trailing comment
// excluded, except after a block collection, whose range runs to the end
// of its last line).
func (t *yamlText) valueRange(e entry, v compiler.Node) (int, int, error) {
	start := e.colon + 1
	for start < len(t.data) && (t.data[start] == ' ' || t.data[start] == '\t') {
		start++
	}
	if v.IsNull() && (start >= len(t.data) || strings.IndexByte("\r\n#,}", t.data[start]) >= 0) {
		return e.colon + 1, e.colon + 1, nil // written as nothing
	}
	vOff, ok := t.offset(v.Pos())
	if !ok || vOff < e.colon {
		return 0, 0, errShared
	}
	vOff, err := t.skipProperties(vOff)
	if err != nil || vOff >= len(t.data) {
		return 0, 0, errShared
	}
	end, err := t.valueEnd(e, v, vOff)
	return vOff, end, err
}

// valueEnd is the offset just past the value written at off.
func (t *yamlText) valueEnd(e entry, v compiler.Node, off int) (int, error) {
	switch c := t.data[off]; {
	case c == '{' || c == '[':
		if end, ok := t.matching(off); ok {
			return end, nil
		}
	case c == '"' || c == '\'':
		if end, ok := t.quotedEnd(off); ok {
			return end, nil
		}
	case c == '*':
		return 0, errShared
	case e.flow:
		end := off
		for end < len(t.data) && strings.IndexByte(",]}\n", t.data[end]) < 0 && !isComment(t.data, end) {
			end++
		}
		return off + len(bytes.TrimRight(t.data[off:end], " \t\r")), nil
	default:
		line := t.lineOf(off)
		last := t.lastLine(line, e.keyIndent, len(v.Items()) > 0, c == '|' || c == '>')
		if v.IsMapping() || len(v.Items()) > 0 || c == '|' || c == '>' {
			return t.lineEnd(last), nil
		}
		return t.plainEnd(off, last), nil
	}
	return 0, fmt.Errorf("internal: unterminated value at byte %d", off)
}

// plainEnd is the end of a plain scalar starting at off whose lines end
// at line last: before a comment or trailing spaces.
func (t *yamlText) plainEnd(off, last int) int {
	end := t.lineEnd(last)
	from := max(off, t.lines[last])
	for i := from; i < end; i++ {
		if isComment(t.data, i) {
			end = i
			break
		}
	}
	return from + len(bytes.TrimRight(t.data[from:end], " \t\r"))
}

// isComment reports a `#` that starts a comment (after a space).
func isComment(data []byte, i int) bool {
	return data[i] == '#' && i > 0 && (data[i-1] == ' ' || data[i-1] == '\t')
}

// replace records that data[start:end] becomes text.
func (t *yamlText) replace(start, end int, text string) {
	t.edits = append(t.edits, textEdit{start: start, end: end, text: text})
}

// setValue makes text (a YAML/JSON scalar or flow collection) the value
// of the entry e.
func (t *yamlText) setValue(e entry, text string) {
	if e.value == e.end || (!e.flow && !t.flowAt(e.value) && t.lineOf(e.value) != t.lineOf(e.colon)) {
		// Nothing written, or a block value on the lines below the key:
		// the new value goes after the `:`.
		t.replace(e.colon+1, e.end, " "+text)
		return
	}
	t.replace(e.value, e.end, text)
}

// deleteEntry removes the entry e with its lines (block style) or its
// comma (flow style).
func (t *yamlText) deleteEntry(e entry) error {
	if e.flow {
		start := e.key
		for start > 0 && isSpace(t.data[start-1]) {
			start--
		}
		if start > 0 && t.data[start-1] == ',' {
			t.replace(start-1, e.end, "")
			return nil
		}
		end := e.end
		for end < len(t.data) && isSpace(t.data[end]) {
			end++
		}
		if end < len(t.data) && t.data[end] == ',' {
			end++
		}
		t.replace(e.key, end, "")
		return nil
	}
	start := t.lines[t.lineOf(e.key)]
	if len(bytes.TrimLeft(t.data[start:e.key], " ")) > 0 {
		return fmt.Errorf("the key at byte %d does not start its line", e.key)
	}
	t.replace(start, min(t.lineEnd(t.lineOf(e.end))+1, len(t.data)), "")
	return nil
}

// insertEntry adds `key: value` to the mapping m after the last of the
// keys after that m has (at its end when none): block text at the
// mapping's indentation, or a JSON member in a flow mapping. block writes
// the value for a block mapping given the indentation of its keys; flow
// is the JSON value.
func (t *yamlText) insertEntry(m compiler.Node, key string, after []string, block func(indent string) string, flow string) error {
	mStart, err := t.start(m)
	if err != nil {
		return err
	}
	anchor, next, err := t.neighbours(m, mStart, after)
	if err != nil {
		return err
	}
	if t.flowAt(mStart) {
		return t.insertFlow(mStart, anchor, next, quoted(key)+": "+flow)
	}
	if anchor.end == 0 && anchor.key == 0 {
		return fmt.Errorf("internal: an empty block mapping")
	}
	ind := strings.Repeat(" ", anchor.keyIndent)
	t.insertLines(t.lineOf(anchor.end), ind+key+":"+block(ind))
	return nil
}

// neighbours finds the entry of m to insert after (the last of the keys
// after that m has, else its last key) and the one written next (zero
// entry when none).
func (t *yamlText) neighbours(m compiler.Node, mStart int, after []string) (anchor, next entry, err error) {
	all, names, err := t.entries(m)
	if err != nil || len(all) == 0 {
		return entry{key: mStart}, entry{}, err
	}
	at := -1
	for i, name := range names {
		if slices.Contains(after, name) {
			at = i
		}
	}
	if at < 0 {
		at = len(all) - 1
	}
	if at+1 < len(all) {
		next = all[at+1]
	}
	return all[at], next, nil
}

// entries are the entries written in the mapping m, in the order written,
// with their keys (merged ones, written elsewhere, left out).
func (t *yamlText) entries(m compiler.Node) ([]entry, []string, error) {
	keys := m.Keys()
	all := make([]entry, 0, len(keys))
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		e, _, err := t.find(m, k)
		if errors.Is(err, errShared) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		all, names = append(all, e), append(names, k)
	}
	// The reader keeps keys in the order written, merged ones last.
	return all, names, nil
}

// insertFirst adds `key: value` (a scalar, the same text in YAML and
// JSON) as the first entry of the mapping m: a line above its first key
// at its indentation, or a first member of a flow mapping.
func (t *yamlText) insertFirst(m compiler.Node, key, value string) error {
	mStart, err := t.start(m)
	if err != nil {
		return err
	}
	all, _, err := t.entries(m)
	if err != nil {
		return err
	}
	flow := t.flowAt(mStart)
	if len(all) == 0 {
		end, ok := t.matching(mStart)
		if !flow || !ok {
			return fmt.Errorf("internal: an empty block mapping")
		}
		return t.appendFlow(mStart, end-1, mStart, quoted(key)+": "+value)
	}
	first := all[0].key
	lineStart := t.lines[t.lineOf(first)]
	startsLine := len(bytes.TrimLeft(t.data[lineStart:first], " \t")) == 0
	switch {
	case flow && startsLine:
		t.replace(first, first, quoted(key)+": "+value+",\n"+string(t.data[lineStart:first]))
	case flow:
		t.replace(first, first, quoted(key)+": "+value+", ")
	case startsLine:
		t.replace(lineStart, lineStart, string(t.data[lineStart:first])+key+": "+value+"\n")
	default:
		return fmt.Errorf("the first key of the document does not start its line")
	}
	return nil
}

// insertFlow adds member (JSON text) to the flow mapping at mStart after
// the entry anchor, before next (or at the end).
func (t *yamlText) insertFlow(mStart int, anchor, next entry, member string) error {
	if next.end != 0 || next.key != 0 {
		sep := ", "
		if line := t.lineOf(next.key); len(bytes.TrimLeft(t.data[t.lines[line]:next.key], " \t")) == 0 {
			sep = ",\n" + string(t.data[t.lines[line]:next.key])
		}
		t.replace(next.key, next.key, member+sep)
		return nil
	}
	end, ok := t.matching(mStart)
	if !ok {
		return fmt.Errorf("internal: unterminated mapping at byte %d", mStart)
	}
	return t.appendFlow(mStart, end-1, anchor.key, member)
}

// appendFlow adds item as the last member or item of the flow collection
// that opens at open and closes at close; lastKey is where its last
// member starts (open when it is empty).
func (t *yamlText) appendFlow(open, close, lastKey int, item string) error {
	p := close
	for p > open+1 && isSpace(t.data[p-1]) {
		p--
	}
	if p == open+1 {
		t.replace(p, p, item)
		return nil
	}
	sep := ", "
	if line := t.lineOf(lastKey); lastKey > open && t.lineOf(p) < t.lineOf(close) && len(bytes.TrimLeft(t.data[t.lines[line]:lastKey], " \t")) == 0 {
		sep = ",\n" + string(t.data[t.lines[line]:lastKey])
	}
	t.replace(p, p, sep+item)
	return nil
}

// appendItems adds the items (JSON scalars) at the end of the sequence
// written as the value of e (flow or block).
func (t *yamlText) appendItems(e entry, seq compiler.Node, items []string) error {
	if t.flowAt(e.value) {
		open := e.value
		if e.value == e.end {
			return fmt.Errorf("internal: no sequence to add to")
		}
		last := open
		if n := seq.Items(); len(n) > 0 {
			if off, ok := t.offset(n[len(n)-1].Pos()); ok && off > open {
				last = off
			}
		}
		return t.appendFlow(open, e.end-1, last, strings.Join(items, ", "))
	}
	dash := strings.Repeat(" ", e.value-t.lines[t.lineOf(e.value)])
	for i := range items {
		items[i] = dash + "- " + items[i]
	}
	t.insertLines(t.lineOf(e.end), strings.Join(items, "\n"))
	return nil
}

// insertLines puts text as lines of their own after line i, keeping a
// file without a final line break without one.
func (t *yamlText) insertLines(i int, text string) {
	if at := t.lineEnd(i) + 1; at <= len(t.data) {
		t.replace(at, at, text+"\n")
		return
	}
	t.replace(len(t.data), len(t.data), "\n"+text)
}

// result is the text with every edit made, or an error when two edits
// overlap.
func (t *yamlText) result() ([]byte, error) {
	edits := slices.Clone(t.edits)
	slices.SortStableFunc(edits, func(a, b textEdit) int { return a.start - b.start })
	var b bytes.Buffer
	grow := len(t.data)
	for _, e := range edits {
		grow += len(e.text)
	}
	b.Grow(grow)
	at := 0
	for _, e := range edits {
		if e.start < at {
			return nil, fmt.Errorf("internal: overlapping edits at byte %d", e.start)
		}
		b.Write(t.data[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(t.data[at:])
	return b.Bytes(), nil
}

// quoted is s as a double-quoted scalar, valid in YAML and JSON alike.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// isJSON reports whether a document is written as JSON (starts with `{`).
func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}
