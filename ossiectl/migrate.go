package ossiectl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// legacyVersions are the `version` values of documents written before the
// first release: "1.0" (used for a few weeks) and no version at all. They
// share the 0.1.1 structure (OSSIE.md), so moving them to a supported
// version only sets `version`.
var legacyVersions = []string{"", "1.0"}

// dialects011 are the dialect names of the 0.1.1 release (apache/ossie
// core-spec/osi-schema.json at 0.1.1). 0.2.0.dev0 added OSSIE_SQL_2026,
// MAQL, BIGQUERY, SIGMA, THOUGHTSPOT and DAX, and object sources
// ({kind: table|query, object}); nothing else differs between the two.
var dialects011 = []ossie.Dialect{ossie.ANSISQL, ossie.Snowflake, ossie.MDX, ossie.Tableau, ossie.Databricks}

// migration is the outcome for one file.
type migration struct {
	file    string
	from    string   // the version found; "" when the document had none
	changed bool     // out differs from the file
	out     []byte   // the migrated file
	human   []string // "path: what to do" for changes that are not mechanical
	notes   []string // "path: what was kept" (read at the target version, but not in its upstream schema)
	err     error    // the file could not be read or is not a document
}

func (e *env) migrateCmd() *cobra.Command {
	var to string
	var check bool
	cmd := &cobra.Command{
		Use:   "migrate --to VERSION FILE...",
		Short: "Rewrite Ossie documents and SemanticModel manifests to another supported version, in place",
		Long: "migrate moves each document (a plain Ossie file or a SemanticModel manifest) to the version\n" +
			"given by --to. Supported versions: " + strings.Join(ossie.SupportedVersions, ", ") + "; documents that say\n" +
			"\"1.0\" or have no version predate the first release and migrate like 0.1.1.\n\n" +
			"Changes that are mechanical are made in place, keeping comments and key order; each file is\n" +
			"replaced atomically (temporary file, fsync, rename) with its permissions kept. When any document\n" +
			"needs a change only a human can make (e.g. an unknown version), migrate writes nothing and names\n" +
			"those documents and places. Moving to 0.1.1 keeps query sources and OSSIE_SQL_2026 (or other\n" +
			"0.2.0.dev0 dialect) expressions, as `ossiectl validate` accepts them at 0.1.1, and notes each one.\n\n" +
			"Exit status: 0 done (or nothing to do); 1 a document needs a human or a file could not be read or\n" +
			"written (with --check: a file would change); 2 usage.",
		Example: "  ossiectl migrate --to 0.2.0.dev0 models/*.yaml\n" +
			"  ossiectl migrate --to 0.2.0.dev0 --check models/*.yaml   # CI: exit 1 if a file is not at 0.2.0.dev0",
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usagef("migrate needs --to VERSION (one of %s), e.g. `ossiectl migrate --to %s %s`", strings.Join(ossie.SupportedVersions, ", "), ossie.SupportedVersions[len(ossie.SupportedVersions)-1], strings.Join(args, " "))
			}
			if !slices.Contains(ossie.SupportedVersions, to) {
				return usagef("--to must be one of %s, not %q", strings.Join(ossie.SupportedVersions, ", "), to)
			}
			var results []*migration
			blocked := false
			for _, name := range args {
				if name == "-" {
					return usagef("migrate rewrites files in place; give file names, not '-'")
				}
				m := migrateFile(name, to)
				results = append(results, m)
				blocked = blocked || m.err != nil || len(m.human) > 0
			}
			if blocked {
				for _, m := range results {
					if m.err != nil {
						fmt.Fprintf(e.stderr, "%s: %v\n", m.file, m.err)
					}
					for _, h := range m.human {
						fmt.Fprintf(e.stderr, "%s: needs a human: %s\n", m.file, h)
					}
				}
				return failf("nothing was written. Next: fix the places listed above by hand (or drop those files from the command), then run migrate again")
			}
			return e.applyMigrations(results, to, check)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "target document version: "+strings.Join(ossie.SupportedVersions, " or "))
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 when a file would change")
	return cmd
}

// applyMigrations writes the changed files (unless check) and prints one
// line per file and a summary.
func (e *env) applyMigrations(results []*migration, to string, check bool) error {
	changed := 0
	for _, m := range results {
		if !m.changed {
			fmt.Fprintf(e.stdout, "%s: already at %s\n", m.file, to)
			continue
		}
		changed++
		from := m.from
		if from == "" {
			from = "(no version)"
		}
		for _, n := range m.notes {
			fmt.Fprintf(e.stderr, "%s: note: %s\n", m.file, n)
		}
		if check {
			fmt.Fprintf(e.stdout, "%s: 1 document would change (%s -> %s)\n", m.file, from, to)
			continue
		}
		if err := writeAtomic(m.file, m.out); err != nil {
			return failf("%v. Files listed above were written; nothing was written from here on. Next: fix the cause and run migrate again (done files are left as they are)", err)
		}
		fmt.Fprintf(e.stdout, "%s: 1 document changed (%s -> %s)\n", m.file, from, to)
	}
	verb := "changed"
	if check {
		verb = "would change"
	}
	fmt.Fprintf(e.stdout, "%d of %d %s %s\n", changed, len(results), plural(len(results), "document", "documents"), verb)
	if check && changed > 0 {
		return failf("run `ossiectl migrate --to %s` on the files listed to migrate them", to)
	}
	return nil
}

// migrateFile computes the migration of one file without writing it.
func migrateFile(name, to string) *migration {
	data, err := readNamedFile(name)
	if err != nil {
		return &migration{file: name, err: fmt.Errorf("cannot read the file (%w); check the path, or drop it from the command", err)}
	}
	return migrateData(name, data, to)
}

// migrateData computes the migration of data (the content of the file
// name) to version to; diff uses it to compare old documents in memory.
func migrateData(name string, data []byte, to string) *migration {
	m := &migration{file: name}
	if p := compiler.CheckDocument(data); p != nil {
		m.err = fmt.Errorf("%d:%d: %s %s; run `ossiectl validate %s` for details", p.Line, p.Column, p.Code, p.Message, name)
		return m
	}
	f, err := parser.ParseBytes(data, parser.ParseComments)
	if err != nil {
		m.err = fmt.Errorf("not readable YAML/JSON; run `ossiectl validate %s` for details", name)
		return m
	}
	if len(f.Docs) != 1 {
		m.err = fmt.Errorf("holds %d YAML documents; migrate reads one document per file", len(f.Docs))
		return m
	}
	root := asMapping(f.Docs[0].Body)
	doc, prefix := root, ""
	if kind, _ := scalarString(mapValue(root, "kind")); kind == "SemanticModel" {
		doc, prefix = asMapping(mapValue(root, "spec")), "spec."
	}
	if doc == nil {
		m.err = fmt.Errorf("not an Ossie document (a mapping with version and semantic_model) or a SemanticModel manifest")
		return m
	}
	entry := mapGet(doc, "version")
	if entry != nil {
		m.from = entry.Value.GetToken().Value
	}
	if m.from == to {
		m.out = data
		return m
	}
	if !slices.Contains(ossie.SupportedVersions, m.from) && !slices.Contains(legacyVersions, m.from) {
		m.human = append(m.human, fmt.Sprintf("%sversion: %q is not a version migrate knows (%s, and \"1.0\" or none for pre-release documents)", prefix, m.from, strings.Join(ossie.SupportedVersions, ", ")))
		return m
	}
	edited := false // the tree changed beyond `version`
	if to == ossie.Version011 {
		var human []string
		human, m.notes, edited = downgradeTo011(doc, prefix)
		m.human = append(m.human, human...)
	} else if dropTopLists(doc) {
		// 0.1.1's top-level `dialects` and `vendors` lists carry no meaning
		// and later versions do not have them.
		edited = true
		m.notes = append(m.notes, prefix+"dialects, "+prefix+"vendors: removed (0.1.1-only enumeration lists)")
	}
	// A change of `version` alone is made on the text, so every other
	// byte (comment spacing included) stays as written; anything more is
	// printed from the edited tree.
	var ok bool
	if !edited {
		m.out, ok = versionTextEdit(data, entry, doc, to)
	}
	if !ok {
		if entry != nil {
			err = replaceValue(entry, quoted(to))
		} else {
			err = prependEntry(doc, "version", quoted(to))
		}
		if err == nil {
			m.out, err = renderFile(f, data)
		}
	}
	if err != nil {
		m.err = err
		return m
	}
	if len(m.human) == 0 {
		// Never write a document that no longer reads: a mechanical
		// change must keep it parseable, and a problem that was there
		// before is for the author to fix first.
		in, probs := readOssieInput(m.out)
		if in != nil {
			_, probs = in.parseDoc()
			probs = in.remap(probs)
		}
		for _, p := range probs.Errors() {
			m.human = append(m.human, fmt.Sprintf("after migration: %s (run `ossiectl validate` on the file and fix it first)", p.String()))
		}
	}
	m.changed = len(m.human) == 0
	return m
}

// downgradeTo011 rewrites what 0.2.0.dev0 added into its 0.1.1 spelling
// where that is mechanical ({kind: table, object: X} becomes the string X).
// Query sources and expressions in dialects the upstream 0.1.1 schema did
// not have are kept, with a note: this build reads both versions with one
// structure (compiler.Parse), so `ossiectl validate` and the operator
// accept them at 0.1.1, and migrate agrees with them rather than asking a
// human; only another tool that reads strict 0.1.1 might refuse them.
func downgradeTo011(doc *ast.MappingNode, prefix string) (human, notes []string, edited bool) {
	models := asSequence(mapValue(doc, "semantic_model"))
	if models == nil {
		return nil, nil, false
	}
	for i, mn := range models.Values {
		model := asMapping(mn)
		mpath := fmt.Sprintf("%ssemantic_model[%d]", prefix, i)
		if ds := asSequence(mapValue(model, "datasets")); ds != nil {
			for j, dn := range ds.Values {
				dataset := asMapping(dn)
				dpath := fmt.Sprintf("%s.datasets[%d]", mpath, j)
				if src := mapGet(dataset, "source"); src != nil {
					h, note, changed := sourceTo011(src, dpath+".source")
					if h != "" {
						human = append(human, h)
					}
					if note != "" {
						notes = append(notes, note)
					}
					edited = edited || changed
				}
				if fs := asSequence(mapValue(dataset, "fields")); fs != nil {
					for k, fn := range fs.Values {
						notes = append(notes, dialectsTo011(asMapping(mapValue(asMapping(fn), "expression")), fmt.Sprintf("%s.fields[%d].expression", dpath, k))...)
					}
				}
			}
		}
		if ms := asSequence(mapValue(model, "metrics")); ms != nil {
			for k, mn := range ms.Values {
				notes = append(notes, dialectsTo011(asMapping(mapValue(asMapping(mn), "expression")), fmt.Sprintf("%s.metrics[%d].expression", mpath, k))...)
			}
		}
	}
	return human, notes, edited
}

// sourceTo011 turns a {kind: table, object: X} source into the string X
// and notes a query source, which is kept.
func sourceTo011(src *ast.MappingValueNode, path string) (human, note string, edited bool) {
	obj := asMapping(src.Value)
	if obj == nil {
		return "", "", false // already a string
	}
	kind, _ := scalarString(mapValue(obj, "kind"))
	if kind == string(ossie.SourceTable) {
		if object, ok := scalarString(mapValue(obj, "object")); ok {
			if err := replaceValue(src, quoted(object)); err != nil {
				return path + ": " + err.Error() + "; set `source:` to the table name by hand", "", false
			}
			return "", "", true
		}
	}
	return "", path + ": kept the {kind: query} source (ossie reads it at 0.1.1; the upstream 0.1.1 schema has none, so a strict 0.1.1 reader may refuse it)", false
}

// versionTextEdit sets `version` by editing the text: the old value's
// bytes are replaced, or a `version:` line is inserted above the first key
// of a block mapping. It reports false when the text is not laid out as
// expected (flow style, unusual quoting), and the caller edits the tree.
func versionTextEdit(data []byte, entry *ast.MappingValueNode, doc *ast.MappingNode, to string) ([]byte, bool) {
	lines := strings.SplitAfter(string(data), "\n")
	if entry != nil {
		pos := entry.Value.GetToken().Position
		if pos.Line < 1 || pos.Line > len(lines) || pos.Column < 1 || pos.Column > len(lines[pos.Line-1]) {
			return nil, false
		}
		line := lines[pos.Line-1]
		start := pos.Column - 1
		end := start
		switch line[start] {
		case '"', '\'':
			closing := strings.IndexByte(line[start+1:], line[start])
			if closing < 0 {
				return nil, false
			}
			end = start + 1 + closing + 1
		default:
			for end < len(line) && !strings.ContainsRune(" \t\r\n#,}", rune(line[end])) {
				end++
			}
		}
		if raw := line[start:end]; strings.Trim(raw, `"'`) != entry.Value.GetToken().Value {
			return nil, false
		}
		lines[pos.Line-1] = line[:start] + quoted(to) + line[end:]
		return []byte(strings.Join(lines, "")), true
	}
	if doc.IsFlowStyle || len(doc.Values) == 0 {
		return nil, false
	}
	pos := doc.Values[0].Key.GetToken().Position
	if pos.Line < 1 || pos.Line > len(lines) || strings.TrimSpace(lines[pos.Line-1][:min(pos.Column-1, len(lines[pos.Line-1]))]) != "" {
		return nil, false
	}
	ins := strings.Repeat(" ", pos.Column-1) + "version: " + quoted(to) + "\n"
	lines = append(lines[:pos.Line-1], append([]string{ins}, lines[pos.Line-1:]...)...)
	return []byte(strings.Join(lines, "")), true
}

// dialectsTo011 notes the expression entries whose dialect the upstream
// 0.1.1 schema lacks (they are kept).
func dialectsTo011(expr *ast.MappingNode, path string) []string {
	var notes []string
	ds := asSequence(mapValue(expr, "dialects"))
	if ds == nil {
		return nil
	}
	for i, dn := range ds.Values {
		d, _ := scalarString(mapValue(asMapping(dn), "dialect"))
		if !slices.Contains(dialects011, ossie.Dialect(d)) {
			notes = append(notes, path+".dialects["+strconv.Itoa(i)+"].dialect: kept "+d+" (ossie reads it at 0.1.1; the upstream 0.1.1 schema lists only "+dialectList011()+", so for a strict 0.1.1 reader rewrite it as ANSI_SQL)")
		}
	}
	return notes
}

func dialectList011() string {
	names := make([]string, len(dialects011))
	for i, d := range dialects011 {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}

// dropTopLists removes the top-level `dialects` and `vendors` keys and
// reports whether there were any.
func dropTopLists(doc *ast.MappingNode) bool {
	kept := doc.Values[:0:0]
	for _, v := range doc.Values {
		if k := v.Key.GetToken().Value; k == "dialects" || k == "vendors" {
			continue
		}
		kept = append(kept, v)
	}
	dropped := len(kept) != len(doc.Values)
	doc.Values = kept
	return dropped
}
