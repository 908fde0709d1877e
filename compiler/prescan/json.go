package prescan

// JSON scans data as JSON text (RFC 8259) against l. Keys are values here,
// as in YAML; l.Keys is ignored (JSON objects are read in linear time).
// Input that is not JSON is scanned as if it were: the decoder that runs
// next reports what is wrong with it.
func JSON(data []byte, l Limits) *Error {
	if e := tooLarge(data, l); e != nil {
		return e
	}
	var (
		depth, nodes int
		line, col    = 1, 0
		inString     bool
		valueNext    = true // a value (or key) may start at the next token
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			continue
		}
		if inString {
			switch c {
			case '\\':
				i++ // an escaped character cannot end the string
				col++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r':
			continue
		case '[', '{':
			depth++
			if exceeds(depth, l.Depth) {
				return over(KindDepth, l.Depth, line, col)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
			valueNext = false
			continue
		case ',', ':':
			valueNext = true
			continue
		case '"':
			inString = true
		}
		if valueNext {
			nodes++
			if exceeds(nodes, l.Nodes) {
				return over(KindNodes, l.Nodes, line, col)
			}
		}
		valueNext = c == '[' || c == '{'
	}
	return nil
}
