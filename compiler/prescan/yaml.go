package prescan

// level is one open block collection: the column its entries start at,
// the keys counted in it so far, and whether its entries are `- ` items
// (a new item starts a new mapping, so its key count restarts).
type level struct {
	col, keys int
	seq       bool
}

// yamlScan is the state of one YAML scan.
type yamlScan struct {
	l          Limits
	data       []byte
	levels     []level
	flow       int  // open flow collections
	quote      byte // ' or " while inside a quoted scalar, else 0
	quoteInd   int  // s.parent where a block-context quote opened
	line, col  int
	lineStart  bool // only spaces seen so far on this line
	lineIndent int  // column of the first character of this line's content
	parent     int  // column of the node a value on this line belongs under: the line's first token, its last key, or its last `- `
	token      int  // column where the last value or key token started
	valueStart bool // the next character may open a value
	nodes      int
}

// YAML scans data as YAML 1.2 (JSON included) against l, in one pass.
//
// Depth counts flow collections (`[`, `{` opening a value, and every one
// inside a flow collection) outside quotes and comments, plus block
// levels (each new, deeper indentation of a line and each compact `- ` or
// `? ` indicator). Nodes counts every token that starts a value or a key,
// plus each `- ` indicator. Keys counts the `key:` entries of each block
// level. Block scalars (`|`, `>`) are skipped as one value. Quotes open
// only where a value starts, as in YAML; in block context a quoted scalar
// that continues onto a line not indented deeper than the node it belongs
// under is taken to have ended, so a stray quote cannot hide what follows.
// A carriage return not followed by a line feed ends a line, as YAML reads it.
func YAML(data []byte, l Limits) *Error {
	if e := tooLarge(data, l); e != nil {
		return e
	}
	s := &yamlScan{l: l, data: data, line: 1, lineStart: true, valueStart: true}
	return s.run()
}

func (s *yamlScan) run() *Error {
	data := s.data
	for i := 0; i < len(data); i++ {
		c := data[i]
		s.col++
		if c == '\n' || c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			s.newLine()
			if s.quote != 0 && s.flow == 0 && s.nextIndent(i+1) <= s.quoteInd {
				s.quote = 0
			}
			continue
		}
		if s.quote != 0 {
			switch {
			case s.quote == '"' && c == '\\':
				i++ // an escaped character cannot end the string
				s.col++
			case c == s.quote:
				s.quote, s.valueStart = 0, false
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' {
			continue
		}
		next := byte(' ')
		if i+1 < len(data) {
			next = data[i+1]
		}
		if s.lineStart {
			s.lineStart = false
			s.lineIndent, s.parent = s.col, s.col
			if c == '#' {
				i = s.skipLine(i)
				continue
			}
			if s.flow == 0 {
				if e := s.openLine((c == '-' || c == '?') && isSpace(next)); e != nil {
					return e
				}
			}
		}
		if c == '#' && (data[i-1] == ' ' || data[i-1] == '\t') {
			i = s.skipLine(i)
			continue
		}
		if s.valueStart && c != ']' && c != '}' && c != ',' {
			s.token = s.col
			s.nodes++
			if exceeds(s.nodes, s.l.Nodes) {
				return over(KindNodes, s.l.Nodes, s.line, s.col)
			}
		}
		indicator := (c == '-' || c == '?') && isSpace(next) && s.valueStart && s.flow == 0
		switch {
		case indicator:
			s.parent = s.col
			if s.col != s.lineIndent {
				// A compact `- - x`: the inner list is one level deeper.
				s.levels = append(s.levels, level{col: s.col, seq: true})
				if e := s.checkDepth(); e != nil {
					return e
				}
			}
			continue // a value may follow on the same line
		case s.valueStart && s.col == 1 && c == '-' && i+3 <= len(data) && string(data[i:i+3]) == "---" && (i+3 == len(data) || isSpace(data[i+3])):
			i += 2 // a document marker; a value may follow it
			s.col += 2
			continue
		case s.valueStart && (c == '&' || c == '!'):
			// An anchor or tag: the value it names follows.
			i = s.skipName(i)
			continue
		case s.valueStart && s.flow == 0 && (c == '|' || c == '>'):
			i = s.skipBlockScalar(i)
			continue
		case s.valueStart && (c == '"' || c == '\''):
			s.quote, s.quoteInd = c, s.parent
			continue
		case c == '[' || c == '{':
			if s.valueStart || s.flow > 0 {
				s.flow++
				if e := s.checkDepth(); e != nil {
					return e
				}
			}
		case (c == ']' || c == '}') && s.flow > 0:
			s.flow--
		}
		switch {
		case c == ':' && s.flow == 0 && isSpace(next):
			if e := s.addKey(); e != nil {
				return e
			}
			s.parent = s.token
			s.valueStart = true
		case s.flow > 0 && (c == ':' || c == ',' || c == '[' || c == '{'):
			s.valueStart = true
		default:
			s.valueStart = false
		}
	}
	return nil
}

func (s *yamlScan) newLine() {
	s.line, s.col, s.lineStart, s.valueStart = s.line+1, 0, true, true
}

// openLine places a block line starting at s.col: a sibling of the open
// level at that column (a new item of a list restarts its key count), or a
// new, deeper level.
func (s *yamlScan) openLine(item bool) *Error {
	for len(s.levels) > 0 && s.levels[len(s.levels)-1].col > s.col {
		s.levels = s.levels[:len(s.levels)-1]
	}
	if n := len(s.levels); n > 0 && s.levels[n-1].col == s.col {
		if top := &s.levels[n-1]; top.seq && item {
			top.keys = 0
		}
		return nil
	}
	s.levels = append(s.levels, level{col: s.col, seq: item})
	return s.checkDepth()
}

func (s *yamlScan) addKey() *Error {
	if len(s.levels) == 0 {
		return nil
	}
	top := &s.levels[len(s.levels)-1]
	top.keys++
	if exceeds(top.keys, s.l.Keys) {
		return over(KindKeys, s.l.Keys, s.line, s.col)
	}
	return nil
}

func (s *yamlScan) checkDepth() *Error {
	if exceeds(len(s.levels)+s.flow, s.l.Depth) {
		return over(KindDepth, s.l.Depth, s.line, s.col)
	}
	return nil
}

// skipLine moves to the byte before the end of the line (a comment).
func (s *yamlScan) skipLine(i int) int {
	for i+1 < len(s.data) && s.data[i+1] != '\n' && s.data[i+1] != '\r' {
		i++
		s.col++
	}
	return i
}

// skipName moves past an anchor or tag name, to the byte before the space
// or flow indicator that ends it.
func (s *yamlScan) skipName(i int) int {
	for i+1 < len(s.data) {
		c := s.data[i+1]
		if isSpace(c) || s.flow > 0 && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}') {
			break
		}
		i++
		s.col++
	}
	return i
}

// nextIndent is the column of the first content character of the first
// non-blank line at or after i (a line past the end counts as column 1).
func (s *yamlScan) nextIndent(i int) int {
	col := 1
	for ; i < len(s.data); i++ {
		switch s.data[i] {
		case ' ':
			col++
		case '\n', '\r':
			col = 1
		default:
			return col
		}
	}
	return 1
}

// skipBlockScalar moves past a literal or folded block scalar whose
// indicator is at i: the rest of its line, then every line that is blank
// or indented at least as deep as its first non-blank content line (which
// must be deeper than the node holding the scalar). It returns the
// index of the line break before the first line after the scalar, where
// the scan resumes.
func (s *yamlScan) skipBlockScalar(i int) int {
	i = s.skipLine(i)
	content := 0 // indentation (spaces) of the content, once known
	for i+1 < len(s.data) {
		j, spaces := i+2, 0 // i+1 is a line break
		if s.data[i+1] == '\r' && j < len(s.data) && s.data[j] == '\n' {
			j++
		}
		for j < len(s.data) && s.data[j] == ' ' {
			j++
			spaces++
		}
		blank := j == len(s.data) || s.data[j] == '\n' || s.data[j] == '\r'
		if !blank {
			if content == 0 {
				if spaces < s.parent {
					return i
				}
				content = spaces
			} else if spaces < content {
				return i
			}
		}
		// Consume the line: it belongs to the scalar.
		s.line++
		s.col = 0
		for j < len(s.data) && s.data[j] != '\n' && s.data[j] != '\r' {
			j++
		}
		i = j - 1
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
