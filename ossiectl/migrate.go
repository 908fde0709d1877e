package ossiectl

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
// The file is read once with the compiler's reader, which finds what to
// change and where; the changes are made on the text (yamlText), every
// other byte staying as written.
func migrateData(name string, data []byte, to string) *migration {
	m := &migration{file: name}
	if p := compiler.CheckDocument(data); p != nil {
		m.err = fmt.Errorf("%d:%d: %s %s; run `ossiectl validate %s` for details", p.Line, p.Column, p.Code, p.Message, name)
		return m
	}
	root, readProbs := compiler.ReadNode(data)
	for _, p := range readProbs.Errors() {
		// A key given twice is left to the check after migration, which
		// names it; anything else leaves no document to migrate.
		if p.Code != compiler.CodeDuplicateKey {
			m.err = fmt.Errorf("%d:%d: %s; run `ossiectl validate %s` for details", p.Line, p.Column, p.Message, name)
			return m
		}
	}
	doc, prefix := root, ""
	if kind, _, _ := root.Get("kind"); textOf(kind) == "SemanticModel" {
		doc, _, _ = root.Get("spec")
		prefix = "spec."
	}
	if !doc.IsMapping() {
		m.err = fmt.Errorf("not an Ossie document (a mapping with version and semantic_model) or a SemanticModel manifest")
		return m
	}
	version, _, hasVersion := doc.Get("version")
	if !version.IsNull() {
		var ok bool
		if m.from, ok = version.Scalar(); !ok {
			j, _ := version.JSON()
			m.from = string(j)
		}
	}
	if m.from == to {
		m.out = data
		return m
	}
	if !slices.Contains(ossie.SupportedVersions, m.from) && !slices.Contains(legacyVersions, m.from) {
		m.human = append(m.human, fmt.Sprintf("%sversion: %q is not a version migrate knows (%s, and \"1.0\" or none for pre-release documents)", prefix, m.from, strings.Join(ossie.SupportedVersions, ", ")))
		return m
	}
	var e migrationEdits
	if to == ossie.Version011 {
		m.notes, e.sources = downgradeTo011(doc, prefix)
	} else if slices.ContainsFunc(doc.Keys(), isTopList) {
		// 0.1.1's top-level `dialects` and `vendors` lists carry no meaning
		// and later versions do not have them.
		e.dropLists = true
		m.notes = append(m.notes, prefix+"dialects, "+prefix+"vendors: removed (0.1.1-only enumeration lists)")
	}
	text := newYAMLText(data)
	err := e.make(text, doc, to)
	if err == nil {
		m.out, err = text.result()
	}
	if err != nil {
		m.err = err
		return m
	}
	versionOnly := len(e.sources) == 0 && !e.dropLists
	// Never write a document that no longer reads: a mechanical change
	// must keep it parseable, and a problem that was there before is for
	// the author to fix first. A version changed in place is checked on
	// the tree already read, with the new version (the lines are the
	// same); anything else is read again.
	var in *ossieInput
	var probs compiler.Problems
	if versionOnly && hasVersion {
		edited := doc.With("version", version.WithText(to))
		if prefix != "" {
			in, probs = fromTree(root.With("spec", edited), readProbs)
		} else {
			in = &ossieInput{tree: edited, treeProbs: readProbs}
		}
	} else {
		in, probs = readOssieInput(m.out)
	}
	if in != nil {
		_, probs = in.parseDoc()
		probs = in.remap(probs)
	}
	m.human = afterMigration(probs)
	m.changed = len(m.human) == 0
	return m
}

// maxAfterMigration bounds the problems a refused migration lists; the
// rest are counted (`ossiectl validate` lists them all).
const maxAfterMigration = 20

// afterMigration are the human lines for the errors among the problems
// of a migrated document.
func afterMigration(probs compiler.Problems) []string {
	var out []string
	more := 0
	for _, p := range probs {
		switch {
		case p.Severity != compiler.SeverityError:
		case len(out) == maxAfterMigration:
			more++
		default:
			out = append(out, fmt.Sprintf("after migration: %s (run `ossiectl validate` on the file and fix it first)", p.String()))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("after migration: %d more problems (run `ossiectl validate` on the file and fix them first)", more))
	}
	return out
}

// textOf is the text of a string scalar, "" for anything else.
func textOf(n compiler.Node) string {
	s, _ := n.Text()
	return s
}

// migrationEdits are the changes beyond `version` a migration makes.
type migrationEdits struct {
	sources   []tableSource // {kind: table, object: X} sources to write as X
	dropLists bool          // remove the top-level dialects and vendors
}

// tableSource is the source of semantic_model[model].datasets[dataset].
type tableSource struct {
	model, dataset int
	object         string
}

// isTopList reports whether a top-level key is one of 0.1.1's enumeration
// lists.
func isTopList(key string) bool { return key == "dialects" || key == "vendors" }

// make records the edits and the new `version` on the text of the
// document written at doc.
func (e migrationEdits) make(t *yamlText, doc compiler.Node, to string) error {
	models := ownedItems(owned(doc, "semantic_model"))
	for _, s := range e.sources {
		// The reader expands aliases and merge keys; the text edited must
		// be the dataset's own.
		err := errShared
		if s.model < len(models) {
			if datasets := ownedItems(owned(models[s.model], "datasets")); s.dataset < len(datasets) && datasets[s.dataset].IsMapping() {
				var src entry
				if src, _, err = t.find(datasets[s.dataset], "source"); err == nil {
					t.setValue(src, quoted(s.object))
				}
			}
		}
		if err != nil {
			return fmt.Errorf("semantic_model[%d].datasets[%d].source: %w; set `source:` to the table name by hand", s.model, s.dataset, err)
		}
	}
	if e.dropLists {
		for _, key := range []string{"dialects", "vendors"} {
			list, ok, err := t.find(doc, key)
			if err == nil && ok {
				err = t.deleteEntry(list)
			}
			if err != nil {
				return fmt.Errorf("%s: %w; remove it by hand", key, err)
			}
		}
	}
	version, ok, err := t.find(doc, "version")
	switch {
	case err != nil:
		return fmt.Errorf("version: %w; set it by hand", err)
	case ok:
		t.setValue(version, quoted(to))
		return nil
	}
	return t.insertFirst(doc, "version", quoted(to))
}

// downgradeTo011 finds what 0.2.0.dev0 added that has a 0.1.1 spelling
// ({kind: table, object: X} is the string X) and notes what is kept.
// Query sources and expressions in dialects the upstream 0.1.1 schema did
// not have are kept, with a note: this build reads both versions with one
// structure (compiler.Parse), so `ossiectl validate` and the operator
// accept them at 0.1.1, and migrate agrees with them rather than asking a
// human; only another tool that reads strict 0.1.1 might refuse them.
func downgradeTo011(doc compiler.Node, prefix string) (notes []string, sources []tableSource) {
	kept := map[string][]string{} // dialect → paths of the entries keeping it
	models, _, _ := doc.Get("semantic_model")
	for i, model := range models.Items() {
		mpath := fmt.Sprintf("%ssemantic_model[%d]", prefix, i)
		datasets, _, _ := model.Get("datasets")
		for j, dataset := range datasets.Items() {
			dpath := fmt.Sprintf("%s.datasets[%d]", mpath, j)
			src, _, _ := dataset.Get("source")
			if src.IsMapping() {
				kind, _, _ := src.Get("kind")
				object, _, _ := src.Get("object")
				if o, ok := object.Text(); ok && textOf(kind) == string(ossie.SourceTable) {
					sources = append(sources, tableSource{model: i, dataset: j, object: o})
				} else {
					notes = append(notes, dpath+".source: kept the {kind: query} source (ossie reads it at 0.1.1; the upstream 0.1.1 schema has none, so a strict 0.1.1 reader may refuse it)")
				}
			}
			fields, _, _ := dataset.Get("fields")
			for k, field := range fields.Items() {
				expr, _, _ := field.Get("expression")
				dialectsTo011(expr, fmt.Sprintf("%s.fields[%d].expression", dpath, k), kept)
			}
		}
		metrics, _, _ := model.Get("metrics")
		for k, metric := range metrics.Items() {
			expr, _, _ := metric.Get("expression")
			dialectsTo011(expr, fmt.Sprintf("%s.metrics[%d].expression", mpath, k), kept)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(kept)) {
		notes = append(notes, keptDialectNote(d, kept[d]))
	}
	return notes, sources
}

// dialectsTo011 adds to kept, by dialect, the paths of the expression
// entries whose dialect the upstream 0.1.1 schema lacks (they are kept).
func dialectsTo011(expr compiler.Node, path string, kept map[string][]string) {
	dialects, _, _ := expr.Get("dialects")
	for i, entry := range dialects.Items() {
		d, _, _ := entry.Get("dialect")
		if name := textOf(d); !slices.Contains(dialects011, ossie.Dialect(name)) {
			kept[name] = append(kept[name], path+".dialects["+strconv.Itoa(i)+"].dialect")
		}
	}
}

// keptDialectNote is one note for every entry keeping dialect d: a model
// written in OSSIE_SQL_2026 has it on most expressions, and a note each
// would bury the notes that matter. It names the first path, and up to
// three more.
func keptDialectNote(d string, paths []string) string {
	what := "kept " + d
	if more := paths[1:]; len(more) > 0 {
		shown := more[:min(3, len(more))]
		what += fmt.Sprintf(", as in %d more expressions (%s", len(more), strings.Join(shown, ", "))
		if len(more) > len(shown) {
			what += ", …"
		}
		what += ")"
	}
	return paths[0] + ": " + what + " (ossie reads it at 0.1.1; the upstream 0.1.1 schema lists only " + dialectList011() + ", so for a strict 0.1.1 reader rewrite it as ANSI_SQL)"
}

func dialectList011() string {
	names := make([]string, len(dialects011))
	for i, d := range dialects011 {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}
