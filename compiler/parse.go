package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Parse reads a YAML or JSON Ossie document strictly (DESIGN.md section 3,
// "Parse is strict"; structure from apache/ossie core-spec/spec.md and
// osi-schema.json, versions 0.1.1 and 0.2.0.dev0).
//
// It returns every problem it finds at once, each with a stable code, a path
// such as `semantic_model[0].datasets[2].fields[1].expression.dialects[0].dialect`
// and the 1-based line:column of the offending key or value:
//   - CodeSyntax: not YAML/JSON, more than one YAML document, alias abuse;
//   - CodeUnsupportedVersion: `version` missing or not in ossie.SupportedVersions
//     (the rest of the document is then not read: it is never read at a
//     guessed version);
//   - CodeUnknownKey (with a "did you mean"), CodeDuplicateKey,
//     CodeMissingKey, CodeWrongType, CodeInvalidValue (datatype, source
//     kind; with a "did you mean"), CodeEmpty (datasets, dialects,
//     from_columns, to_columns given as empty lists);
//   - warnings: CodeUnknownDialect for a dialect name this build does not
//     know (kept, never executed).
//
// Version 0.1.1 documents may carry the top-level `dialects` and `vendors`
// lists of that version's schema; later versions may not.
//
// Scalar rule: where the spec wants a string, only a string is accepted. YAML
// reads `name: 2024`, `name: true` or `name: 1.10` as a number or boolean, and
// that is CodeWrongType with a hint to quote the value; nothing is converted
// silently, so what the author sees is what the engine gets. Likewise
// `is_time` wants a real boolean, and null is never taken for "absent".
//
// Both supported versions are read with one structure, the 0.2.0.dev0 one,
// which only adds to 0.1.1 (object sources, more dialect names).
//
// The result is never nil. It locates every mapping key and sequence
// item by path (Locate) and Doc holds what was read; Doc is nil
// only when the input is not readable YAML/JSON or its version is not
// supported. Callers must check Problems.HasErrors before using Doc.
func Parse(data []byte) (*Parsed, Problems) {
	root, probs := readYAML(data)
	return parseRoot(root, probs)
}

// parseRoot is Parse of a document already read (ParseNode passes a value
// inside a larger file), with the problems found reading it.
func parseRoot(root *ynode, probs Problems) (*Parsed, Problems) {
	parsed := &Parsed{root: root}
	if root == nil && len(probs) > 0 {
		probs.Sort()
		return parsed, probs
	}
	w := &walker{probs: probs}
	if root == nil {
		// An empty file is a document without a version.
		root = &ynode{kind: kindMap, pos: Position{Line: 1, Column: 1}}
	}
	if root.kind != kindMap {
		w.wrongType(root, "", "a mapping with `version` and `semantic_model`")
		w.probs.Sort()
		return parsed, w.probs
	}
	if !w.version(root) {
		w.probs.Sort()
		return parsed, w.probs
	}
	parsed.Doc = w.document(root)
	w.probs.Sort()
	return parsed, w.probs
}

// versionHelp tells how to fix a document whose version this build does not
// read. Documents that said "1.0" or nothing at all predate the versioned
// releases and share the 0.1.1 structure, so their fix is mechanical.
func versionHelp() string {
	quoted := make([]string, len(ossie.SupportedVersions))
	for i, v := range ossie.SupportedVersions {
		quoted[i] = strconv.Quote(v)
	}
	latest := ossie.SupportedVersions[len(ossie.SupportedVersions)-1]
	return fmt.Sprintf("this build reads versions %s; run `ossiectl migrate --to %s FILE` (or set `version: %q` at the top of the file)",
		strings.Join(quoted, ", "), latest, latest)
}

// version checks the top-level `version` and reports whether the rest of the
// document may be read.
func (w *walker) version(root *ynode) bool {
	v, ok := root.get("version")
	if !ok {
		w.add(CodeUnsupportedVersion, "version", root.pos, "the document has no `version`: "+versionHelp())
		return false
	}
	if v.kind != kindString {
		w.add(CodeUnsupportedVersion, "version", v.pos, fmt.Sprintf("`version` must be a quoted string, got %s: %s", v.describe(), versionHelp()))
		return false
	}
	for _, s := range ossie.SupportedVersions {
		if v.str == s {
			return true
		}
	}
	w.add(CodeUnsupportedVersion, "version", v.pos, fmt.Sprintf("version %q is not supported: %s", v.str, versionHelp()))
	return false
}

// walker checks a ynode tree against the Ossie structure, collecting problems.
type walker struct {
	probs Problems
}

func (w *walker) add(code, path string, pos Position, msg string) {
	w.probs = append(w.probs, Problem{Code: code, Severity: SeverityError, Path: path, Line: pos.Line, Column: pos.Column, Message: msg})
}

// wrongType reports n where want was expected, suggesting quotes for a
// number or boolean given where a string belongs.
func (w *walker) wrongType(n *ynode, path, want string) {
	msg := fmt.Sprintf("must be %s, got %s", want, n.describe())
	if want == "a string" && (n.kind == kindInt || n.kind == kindFloat || n.kind == kindBool) {
		msg += fmt.Sprintf("; quote it to mean the text: %q", n.str)
	}
	w.add(CodeWrongType, path, n.pos, msg)
}

// key describes one allowed key of a mapping and how to read its value.
type key struct {
	name     string
	required bool
	read     func(n *ynode, path string)
}

// object reads a mapping against its allowed keys: unknown keys (with a did
// you mean), missing required keys, then each present key's value. It
// reports whether n was a mapping at all.
func (w *walker) object(n *ynode, path, what string, keys []key) bool {
	if n.kind != kindMap {
		w.wrongType(n, path, "a mapping ("+what+")")
		return false
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	for _, e := range n.keys {
		if !contains(names, e.key) {
			msg := fmt.Sprintf("unknown key `%s` in %s", e.key, what)
			if s := DidYouMean(e.key, names); s != "" {
				msg += fmt.Sprintf("; did you mean `%s`?", s)
			} else {
				msg += "; allowed keys: " + strings.Join(names, ", ")
			}
			w.add(CodeUnknownKey, joinKey(path, e.key), e.keyPos, msg)
		}
	}
	for _, k := range keys {
		v, ok := n.get(k.name)
		if !ok {
			if k.required {
				w.add(CodeMissingKey, path, n.pos, fmt.Sprintf("%s is missing required key `%s`", what, k.name))
			}
			continue
		}
		k.read(v, joinKey(path, k.name))
	}
	return true
}

// str reads a string value into dst.
func (w *walker) str(dst *string) func(*ynode, string) {
	return func(n *ynode, path string) {
		if n.kind != kindString {
			w.wrongType(n, path, "a string")
			return
		}
		*dst = n.str
	}
}

// strList reads a list of strings. nonEmpty reports an empty list as
// CodeEmpty. An empty list is stored as nil unless keepEmpty, so that
// `primary_key: []` and an absent key read the same.
func (w *walker) strList(dst *[]string, nonEmpty, keepEmpty bool) func(*ynode, string) {
	return func(n *ynode, path string) {
		if n.kind != kindSeq {
			w.wrongType(n, path, "a list of strings")
			if n.kind == kindString {
				w.probs[len(w.probs)-1].Message += fmt.Sprintf("; write [%s] for a single entry", n.str)
			}
			return
		}
		if len(n.seq) == 0 && nonEmpty {
			w.add(CodeEmpty, path, n.pos, "must list at least one column")
		}
		out := make([]string, 0, len(n.seq))
		for i, item := range n.seq {
			if item.kind != kindString {
				w.wrongType(item, indexPath(path, i), "a string")
				continue
			}
			out = append(out, item.str)
		}
		if len(out) == 0 && !keepEmpty {
			out = nil
		}
		*dst = out
	}
}

// list reads a sequence, calling item for each entry with its path.
func (w *walker) list(n *ynode, path, want string, item func(n *ynode, path string)) bool {
	if n.kind != kindSeq {
		w.wrongType(n, path, want)
		return false
	}
	for i, c := range n.seq {
		item(c, indexPath(path, i))
	}
	return true
}

// enum reads a string that must be one of allowed (case-sensitive, as the
// spec writes them); a near miss gets a did you mean.
func enum[T ~string](w *walker, dst *T, allowed []T, what string) func(*ynode, string) {
	return func(n *ynode, path string) {
		if n.kind != kindString {
			w.wrongType(n, path, "a string")
			return
		}
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
			if string(a) == n.str {
				*dst = a
				return
			}
		}
		msg := fmt.Sprintf("%q is not a valid %s", n.str, what)
		if s := DidYouMean(n.str, names); s != "" {
			msg += fmt.Sprintf("; did you mean `%s`?", s)
		} else {
			msg += "; valid values: " + strings.Join(names, ", ")
		}
		w.add(CodeInvalidValue, path, n.pos, msg)
	}
}

// joinKey appends a mapping key to a path.
func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// indexPath appends a sequence index to a path.
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
