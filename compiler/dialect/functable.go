package dialect

import (
	"fmt"
	"strings"
)

// funcRender renders one call of an Ossie function from its already
// rendered arguments; ok=false keeps the generic NAME(args) spelling (an
// arity or argument this engine's entry does not rewrite).
type funcRender func(a []string) (sql string, ok bool)

// funcTable is one engine's function spellings, canonical upper-case name
// → rendering, as data: adding a function to an engine is one entry. A
// name absent from the table keeps the generic spelling.
type funcTable map[string]funcRender

// render looks name up; the Func method of every engine dialect is this.
func (t funcTable) render(name string, a []string) (string, bool) {
	if f, ok := t[name]; ok {
		return f(a)
	}
	return "", false
}

// fixed renders a call of exactly n arguments through a fmt format whose
// verbs take the arguments in order (or by index, %[2]s); other arities
// keep the generic spelling. Up to three arguments are passed without
// building a slice, so a call allocates no more than the format needs.
func fixed(n int, format string) funcRender {
	return func(a []string) (string, bool) {
		if len(a) != n {
			return "", false
		}
		switch n {
		case 1:
			return fmt.Sprintf(format, a[0]), true
		case 2:
			return fmt.Sprintf(format, a[0], a[1]), true
		case 3:
			return fmt.Sprintf(format, a[0], a[1], a[2]), true
		}
		args := make([]any, n)
		for i, x := range a {
			args[i] = x
		}
		return fmt.Sprintf(format, args...), true
	}
}

// firstOf tries renderings in order (one per arity, usually) and takes the
// first that applies.
func firstOf(rs ...funcRender) funcRender {
	return func(a []string) (string, bool) {
		for _, r := range rs {
			if s, ok := r(a); ok {
				return s, true
			}
		}
		return "", false
	}
}

// anyArity renders calls of every arity (CONCAT, GREATEST) with f.
func anyArity(f func(a []string) string) funcRender {
	return func(a []string) (string, bool) { return f(a), true }
}

// Renderings that more than one engine shares.
var (
	// replaceAll is REPLACE(s, from): every occurrence removed, in the
	// three-argument form every engine reads.
	replaceAll = fixed(2, "replace(%s, %s, '')")
	// charIndex is CHARINDEX(needle, haystack, start): the position
	// counted from the start of haystack, 0 when needle does not occur at
	// or after start, NULL when an argument is NULL. Plain SQL every engine
	// reads; the two-argument form is the generic strpos the renderer
	// writes.
	charIndex = fixed(3, "CASE WHEN strpos(substr(%[2]s, %[3]s), %[1]s) > 0 THEN strpos(substr(%[2]s, %[3]s), %[1]s) + (%[3]s) - 1 WHEN strpos(substr(%[2]s, %[3]s), %[1]s) = 0 THEN 0 END")
	// logBase is LOG(base, x) as a quotient of natural logarithms.
	logBase = fixed(2, "(ln(%[2]s) / ln(%[1]s))")
	// containsPos is CONTAINS(s, part) through strpos.
	containsPos = fixed(2, "(strpos(%s, %s) > 0)")
	// startsWith is STARTSWITH(s, prefix) as starts_with.
	startsWith = fixed(2, "starts_with(%s, %s)")
)

// renamed is the same call under another function name, any arity.
func renamed(fn string) funcRender {
	return anyArity(func(a []string) string { return fn + "(" + strings.Join(a, ", ") + ")" })
}

// formatted renders a two-argument call (value, format) whose format is a
// strftime literal (DuckDB's format language, the reference): translate
// turns it into the engine's own, which is quoted into format. A format
// translate refuses keeps the generic spelling, which the engine's Support
// refuses.
func formatted(translate func(lit string) (string, bool), format string) funcRender {
	render := fixed(2, format)
	return exactly(2, func(a []string) (string, bool) {
		f, ok := translate(a[1])
		if !ok {
			return "", false
		}
		return render([]string{a[0], ansi{}.QuoteString(f)})
	})
}

// exactly applies f to calls of n arguments only; other arities keep the
// generic spelling.
func exactly(n int, f funcRender) funcRender {
	return func(a []string) (string, bool) {
		if len(a) != n {
			return "", false
		}
		return f(a)
	}
}

// partCall renders a call of n arguments whose first names a date part
// (YEAR, 'year', ...): parse reads it, and f gets the part and the other
// arguments. An unknown part keeps the generic spelling.
func partCall(n int, parse func(string) (string, bool), f func(part string, rest []string) string) funcRender {
	return exactly(n, func(a []string) (string, bool) {
		part, ok := parse(a[0])
		if !ok {
			return "", false
		}
		return f(part, a[1:]), true
	})
}

// intervalAdd is DATEADD(part, n, x) as x plus n intervals of one part
// (intervalUnits), as DuckDB and PostgreSQL both read it.
var intervalAdd = partCall(3, func(p string) (string, bool) {
	unit, ok := intervalUnits[strings.ToUpper(p)]
	return unit, ok
}, func(unit string, a []string) string {
	return fmt.Sprintf("(%s + (%s) * INTERVAL '%s')", a[1], a[0], unit)
})
