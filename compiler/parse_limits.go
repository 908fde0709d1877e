package compiler

import "fmt"

// MaxDocumentBytes bounds a model or governance document. The YAML parser's
// cost grows faster than linearly with nesting, so size and depth are
// checked by one linear scan before it runs (issue 13: a 40 KB document of
// nested brackets took 6.6 s and 0.9 GB). Real documents are far smaller;
// a Kubernetes object, which carries the operator's copy, is at most
// 1.5 MiB.
const MaxDocumentBytes = 8 << 20

// checkLimits refuses a document over MaxDocumentBytes (CodeDocumentTooLarge)
// or one that nests deeper than maxDepth (CodeSyntax, like the tree walk's
// own check), in one pass over the bytes with constant work per byte.
//
// The depth it measures is an upper bound of the YAML nesting: flow
// collections (`[`, `{` opening a value, and every one inside a flow
// collection) outside quotes and comments, plus block levels (each new,
// deeper indentation of a line, and each compact `- ` or `? ` indicator
// that opens a line's content). A document it accepts therefore nests at
// most maxDepth deep (the parser may still refuse it as malformed).
func checkLimits(data []byte) *Problem {
	if len(data) > MaxDocumentBytes {
		return &Problem{Code: CodeDocumentTooLarge, Severity: SeverityError, Line: 1, Column: 1,
			Message: fmt.Sprintf("document is %d bytes, over the limit of %d bytes", len(data), MaxDocumentBytes)}
	}
	var (
		indents    []int // open block indentation columns, increasing
		flow       int   // open flow collections
		quote      byte  // ' or " while inside a quoted scalar, else 0
		line, col  = 1, 0
		lineStart  = true // only spaces seen so far on this line
		valueStart = true // the next non-space character may open a value
	)
	deep := func() *Problem {
		return &Problem{Code: CodeSyntax, Severity: SeverityError, Line: line, Column: col,
			Message: fmt.Sprintf("document nests deeper than %d levels", maxDepth)}
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		if c == '\n' {
			line, col, lineStart, valueStart = line+1, 0, true, true
			continue
		}
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				i++ // an escaped character cannot end the string
				col++
			case c == quote:
				quote, valueStart = 0, false
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' {
			continue
		}
		if lineStart {
			lineStart = false
			if c == '#' {
				skipLine(data, &i, &col)
				continue
			}
			if flow == 0 {
				for len(indents) > 0 && indents[len(indents)-1] >= col {
					indents = indents[:len(indents)-1]
				}
				indents = append(indents, col)
			}
		}
		next := byte(' ')
		if i+1 < len(data) {
			next = data[i+1]
		}
		switch {
		case c == '#' && i > 0 && (data[i-1] == ' ' || data[i-1] == '\t'):
			skipLine(data, &i, &col)
			continue
		case c == '"' || c == '\'':
			if valueStart || flow > 0 {
				quote = c
			}
		case c == '[' || c == '{':
			if valueStart || flow > 0 {
				flow++
			}
		case (c == ']' || c == '}') && flow > 0:
			flow--
		case flow == 0 && valueStart && (c == '-' || c == '?') && isSpace(next):
			indents = append(indents, col)
		}
		if len(indents)+flow > maxDepth {
			return deep()
		}
		switch {
		case c == ':' && isSpace(next), (c == ',' || c == '[' || c == '{') && flow > 0:
			valueStart = true
		case (c == '-' || c == '?') && isSpace(next) && valueStart:
			valueStart = true
		default:
			valueStart = false
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipLine moves i to the byte before the end of the line.
func skipLine(data []byte, i *int, col *int) {
	for *i+1 < len(data) && data[*i+1] != '\n' {
		*i++
		*col++
	}
}
