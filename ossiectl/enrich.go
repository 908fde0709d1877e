package ossiectl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// enrichOptions are the flags of enrich.
type enrichOptions struct {
	datahub, platform, env, instance string
	output                           string
	tokens                           tokenFlags
	urns                             map[string]string
	nameParts                        int
	overwrite, dryRun, lowercase     bool
	timeout                          time.Duration
}

// enrichStats counts what enrich did, for the summary line.
type enrichStats struct {
	datasets, lookedUp, skipped, found, added, replaced, kept, synonyms int
}

func (e *env) enrichCmd() *cobra.Command {
	o := enrichOptions{}
	var urnFlags []string
	cmd := &cobra.Command{
		Use:   "enrich --datahub URL --platform PLATFORM FILE",
		Short: "Fill missing descriptions and add synonyms from DataHub's glossary terms and tags",
		Long: "enrich looks up every dataset of FILE (an Ossie document or a SemanticModel manifest) in DataHub's\n" +
			"GraphQL API and, for the dataset and each field, fills a missing description and adds the\n" +
			"glossary terms and tags as ai_context.synonyms. Text the author wrote is never replaced unless\n" +
			"--overwrite; synonyms are only added. Comments and key order are kept; FILE is replaced\n" +
			"atomically (or the result goes to -o OUT, '-' for stdout). A summary of every change is printed.\n\n" +
			"Dataset to DataHub URN: urn:li:dataset:(urn:li:dataPlatform:PLATFORM,NAME,ENV) where NAME is the\n" +
			"table path of the dataset's source as written (catalog.schema.table), cut to its last\n" +
			"--name-parts parts (2 for glue/hive, whose names are database.table), lowercased with\n" +
			"--lowercase, and prefixed by --platform-instance and a dot when given. Query and file sources are skipped unless mapped with\n" +
			"--urn DATASET=URN. A field matches the DataHub column named by its expression when that is a plain\n" +
			"column reference, else the column named like the field (case-insensitive; v2 field paths such as\n" +
			"[version=2.0].[type=string].city match city).\n\n" +
			"The token is read from the environment variable --token-env (default DATAHUB_TOKEN) or from\n" +
			"--token-file, and sent as a Bearer token; it is never printed.\n\n" +
			"Exit status: 0 done; 1 the document has problems or DataHub refused the request; 2 usage;\n" +
			"3 DataHub could not be reached (nothing was written).",
		Example: "  export DATAHUB_TOKEN=...   # a DataHub personal access token\n" +
			"  ossiectl enrich --datahub http://datahub-gms:8080 --platform trino model.yaml\n" +
			"  ossiectl enrich --datahub https://datahub.example.com/api/graphql --platform postgres --env DEV \\\n" +
			"      --urn 'orders=urn:li:dataset:(urn:li:dataPlatform:postgres,shop.public.orders_v2,DEV)' model.yaml -o -",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.datahub == "" {
				return usagef("--datahub URL is required (DataHub GMS address, e.g. http://datahub-gms:8080)")
			}
			if o.platform == "" && len(urnFlags) == 0 {
				return usagef("--platform is required to build each dataset's DataHub URN (the platform of the sources: trino, postgres, glue, hive, snowflake, ...), unless every dataset is mapped with --urn DATASET=URN")
			}
			o.urns = map[string]string{}
			for _, u := range urnFlags {
				ds, urn, ok := strings.Cut(u, "=")
				if !ok || ds == "" || !strings.HasPrefix(urn, "urn:li:dataset:") {
					return usagef("--urn %q: want DATASET=urn:li:dataset:(...)", u)
				}
				o.urns[ds] = urn
			}
			token, err := o.tokens.read()
			if err != nil {
				return err
			}
			if token == "" {
				fmt.Fprintf(e.stderr, "ossiectl: warning: no DataHub token ($%s is not set and no --token-file); trying without authentication, which works only if DataHub allows anonymous reads\n", o.tokens.env)
			}
			return e.enrich(cmd, args[0], o, token)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.datahub, "datahub", "", "DataHub GMS address or GraphQL endpoint (/api/graphql is appended unless the URL ends in /graphql)")
	f.StringVar(&o.platform, "platform", "", "DataHub data platform of the sources: trino, postgres, glue, hive, duckdb, ...")
	f.StringVar(&o.env, "env", "PROD", "DataHub environment (fabric) of the datasets")
	f.StringVar(&o.instance, "platform-instance", "", "DataHub platform instance, prefixed to dataset names")
	f.IntVar(&o.nameParts, "name-parts", 0, "keep only the last N dot-separated parts of the table path (2 for glue and hive: database.table); 0 keeps all")
	f.BoolVar(&o.lowercase, "lowercase", false, "lowercase dataset names in URNs (as DataHub's Snowflake and BigQuery sources do)")
	f.StringArrayVar(&urnFlags, "urn", nil, "DATASET=URN: use this DataHub URN for a dataset (repeatable)")
	o.tokens.register(f, "DATAHUB_TOKEN", "DataHub")
	f.BoolVar(&o.overwrite, "overwrite", false, "replace descriptions the author wrote with DataHub's")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the summary only; write nothing")
	f.StringVarP(&o.output, "output", "o", "", "write the result here instead of replacing FILE ('-' = stdout)")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of each DataHub request")
	return cmd
}

func (e *env) enrich(cmd *cobra.Command, name string, o enrichOptions, token string) error {
	data, err := e.readInput(name)
	if err != nil {
		return failf("cannot read %s: %v. Next: check the path of the document to enrich", displayName(name), err)
	}
	doc, parsed, probs := parseEditable(data)
	if probs.HasErrors() {
		printProblems(e.stderr, displayName(name), probs.Errors())
		return failf("%s cannot be read; nothing was changed. Next: fix the problems listed (ossiectl validate %s)", displayName(name), name)
	}
	client := newDatahubClient(o.datahub, token, o.timeout)
	ed := &enrichEdit{env: e, text: newYAMLText(data), overwrite: o.overwrite}
	total := 0
	for _, model := range parsed.Doc.SemanticModel {
		total += len(model.Datasets)
	}
	tick, done := e.lookupProgress(total)
	defer done()
	models := ownedItems(owned(doc, "semantic_model"))
	for i := range parsed.Doc.SemanticModel {
		model := &parsed.Doc.SemanticModel[i]
		dsNodes := ownedItems(owned(models[i], "datasets"))
		for j := range model.Datasets {
			ds := &model.Datasets[j]
			ed.st.datasets++
			tick(ed.st.datasets)
			label := ds.Name
			if len(parsed.Doc.SemanticModel) > 1 {
				label = model.Name + "/" + ds.Name
			}
			if err := ed.dataset(cmd.Context(), client, label, ds, dsNodes[j], o); err != nil {
				return datahubFailure(err, o.datahub, token != "")
			}
		}
	}
	done()
	e.enrichSummary(ed.st)
	changed := ed.st.added+ed.st.replaced+ed.st.synonyms > 0
	if o.dryRun || (!changed && o.output == "") {
		return nil
	}
	out, err := ed.text.result()
	if err == nil {
		err = checkEdited(out, parsed)
	}
	if err != nil {
		return failf("%v; nothing was written", err)
	}
	switch {
	case o.output == "-" || (o.output == "" && name == "-"):
		_, err = e.stdout.Write(out)
		return err
	case o.output != "":
		name = o.output
	}
	if err := writeAtomic(name, out); err != nil {
		return failf("%v", err)
	}
	return nil
}

func (e *env) enrichSummary(st enrichStats) {
	fmt.Fprintf(e.stdout, "%d %s: %d looked up in DataHub, %d found, %d skipped: %d %s added, %d replaced, %d %s added",
		st.datasets, plural(st.datasets, "dataset", "datasets"), st.lookedUp, st.found, st.skipped, st.added, plural(st.added, "description", "descriptions"), st.replaced, st.synonyms, plural(st.synonyms, "synonym", "synonyms"))
	if st.kept > 0 {
		fmt.Fprintf(e.stdout, "; %d author %s kept (--overwrite replaces them)", st.kept, plural(st.kept, "description", "descriptions"))
	}
	fmt.Fprintln(e.stdout)
}

// enrichEdit is one run's edits of the file's text and their counts.
type enrichEdit struct {
	env       *env
	text      *yamlText
	st        enrichStats
	overwrite bool
}

// dataset looks ds up in DataHub and edits it and its fields (node is
// where ds is written; the zero Node when through an alias). ds is
// changed as the file is, for checkEdited.
func (ed *enrichEdit) dataset(ctx context.Context, client *datahubClient, label string, ds *ossie.Dataset, node compiler.Node, o enrichOptions) error {
	e := ed.env
	urn, why := datasetURN(*ds, o)
	if urn == "" {
		ed.st.skipped++
		fmt.Fprintf(e.stdout, "%s: skipped: %s\n", label, why)
		return nil
	}
	ed.st.lookedUp++
	found, err := client.dataset(ctx, urn)
	if err != nil {
		return err
	}
	if found == nil {
		fmt.Fprintf(e.stdout, "%s: not in DataHub (%s). Next: check --platform/--env/--platform-instance, or map it with --urn %s=URN\n", label, urn, ds.Name)
		return nil
	}
	ed.st.found++
	ed.entry(label, node, &ds.Description, &ds.AIContext, found.dhEntry)
	fieldNodes := ownedItems(owned(node, "fields"))
	for k := range ds.Fields {
		fld := &ds.Fields[k]
		info, ok := fieldInfo(*fld, found.fields)
		if !ok {
			continue
		}
		var fn compiler.Node
		if k < len(fieldNodes) {
			fn = fieldNodes[k]
		}
		ed.entry(label+"."+fld.Name, fn, &fld.Description, &fld.AIContext, info)
	}
	return nil
}

// entry fills the description and adds synonyms of one dataset or field
// written at node, printing one summary line when anything changed (or
// could not be).
func (ed *enrichEdit) entry(label string, node compiler.Node, desc *string, aiCtx **ossie.AIContext, info dhEntry) {
	var did []string
	verb := ""
	switch {
	case info.description == "" || info.description == strings.TrimSpace(*desc):
	case strings.TrimSpace(*desc) == "":
		verb = "added"
	case ed.overwrite:
		verb = "replaced"
	default:
		ed.st.kept++
	}
	if verb != "" {
		if err := ed.setDescription(node, info.description); err != nil {
			did = append(did, "description not "+verb+": "+err.Error())
		} else {
			*desc = info.description
			did = append(did, "description "+verb)
			if verb == "added" {
				ed.st.added++
			} else {
				ed.st.replaced++
			}
		}
	}
	if add := missingSynonyms(*aiCtx, info.synonyms); len(add) > 0 {
		did = append(did, ed.synonyms(node, aiCtx, add))
	}
	if len(did) > 0 {
		fmt.Fprintf(ed.env.stdout, "%s: %s\n", label, strings.Join(did, "; "))
	}
}

// synonyms adds the names to ai_context.synonyms and says what it did.
func (ed *enrichEdit) synonyms(node compiler.Node, aiCtx **ossie.AIContext, add []string) string {
	if *aiCtx != nil && (*aiCtx).IsText {
		return fmt.Sprintf("synonyms %s not added: ai_context is a string (make it {instructions: ...} to let enrich add synonyms)", strings.Join(add, ", "))
	}
	if err := ed.addSynonyms(node, add); err != nil {
		return fmt.Sprintf("synonyms %s not added: %v", strings.Join(add, ", "), err)
	}
	if *aiCtx == nil {
		*aiCtx = &ossie.AIContext{}
	}
	(*aiCtx).Synonyms = append((*aiCtx).Synonyms, add...)
	ed.st.synonyms += len(add)
	return "synonyms added: " + strings.Join(add, ", ")
}

// descriptionAfter are the keys a new description is written after (an
// author puts it under the name, not below a long field list).
var descriptionAfter = []string{"name", "source", "primary_key", "unique_keys", "label"}

func (ed *enrichEdit) setDescription(node compiler.Node, text string) error {
	if !node.IsMapping() {
		return errShared
	}
	e, ok, err := ed.text.find(node, "description")
	switch {
	case err != nil:
		return err
	case ok:
		ed.text.setValue(e, quoted(text))
		return nil
	}
	return ed.text.insertEntry(node, "description", descriptionAfter, func(string) string { return " " + quoted(text) }, quoted(text))
}

// addSynonyms appends to ai_context.synonyms, creating what is missing.
func (ed *enrichEdit) addSynonyms(node compiler.Node, add []string) error {
	if !node.IsMapping() {
		return errShared
	}
	items := make([]string, len(add))
	for i, s := range add {
		items[i] = quoted(s)
	}
	list := "[" + strings.Join(items, ", ") + "]"
	t := ed.text
	e, ok, err := t.find(node, "ai_context")
	switch {
	case err != nil:
		return err
	case !ok:
		return t.insertEntry(node, "ai_context", slices.Concat(descriptionAfter, []string{"description"}),
			func(ind string) string { return "\n" + ind + "  synonyms: " + list }, `{"synonyms": `+list+`}`)
	}
	ctx := owned(node, "ai_context")
	if !ctx.IsMapping() {
		t.setValue(e, `{"synonyms": `+list+`}`)
		return nil
	}
	se, ok, err := t.find(ctx, "synonyms")
	switch {
	case err != nil:
		return err
	case !ok:
		return t.insertEntry(ctx, "synonyms", nil, func(string) string { return " " + list }, list)
	}
	if syn := owned(ctx, "synonyms"); len(syn.Items()) > 0 {
		return t.appendItems(se, syn, items)
	}
	t.setValue(se, list)
	return nil
}

// missingSynonyms are the names not yet among the synonyms (case-insensitive).
func missingSynonyms(ctx *ossie.AIContext, names []string) []string {
	var out []string
	for _, n := range names {
		have := false
		if ctx != nil {
			for _, s := range ctx.Synonyms {
				have = have || strings.EqualFold(s, n)
			}
		}
		if !have {
			out = append(out, n)
		}
	}
	return out
}

// plainIdentifier is an unquoted, unqualified name.
var plainIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// fieldInfo is DataHub's entry for the column of f (fieldColumn). An
// expression that is a plain identifier names that column (SQL folds it
// to lower case) unless the parser reads it as something else (a
// keyword), when the field's name counts: the parse, the costliest step
// of a large document's enrichment, is needed only when exactly those
// two differ and DataHub knows one of them.
func fieldInfo(f ossie.Field, fields map[string]dhEntry) (dhEntry, bool) {
	if p, ok := f.Expression.Portable(); ok && plainIdentifier.MatchString(p.Expression) {
		column, name := strings.ToLower(p.Expression), strings.ToLower(f.Name)
		_, byColumn := fields[column]
		_, byName := fields[name]
		if column == name || !byColumn && !byName {
			info, ok := fields[name]
			return info, ok
		}
	}
	info, ok := fields[strings.ToLower(fieldColumn(f))]
	return info, ok
}

// fieldColumn is the column a field reads when its portable expression is
// a plain column reference, else the field's own name.
func fieldColumn(f ossie.Field) string {
	// A lone column reference, bare or quoted ("Order Date", as init
	// drafts for names that are not identifiers), qualified or not: the
	// expression parser unquotes it exactly as the engine will.
	if p, ok := f.Expression.Portable(); ok {
		if n, errs := expr.Parse(p.Expression); len(errs) == 0 {
			if r, ok := n.(expr.Ref); ok {
				return r.Name
			}
		}
	}
	return f.Name
}

// datasetURN is the DataHub URN of a dataset, or "" and why it is skipped.
func datasetURN(ds ossie.Dataset, o enrichOptions) (string, string) {
	if urn := o.urns[ds.Name]; urn != "" {
		return urn, ""
	}
	table := ""
	switch {
	case ds.Source.Form == ossie.SourceFormQuery:
		return "", "query source; map it with --urn " + ds.Name + "=URN"
	case strings.ContainsAny(ds.Source.Object, " \t\n("):
		return "", "query source; map it with --urn " + ds.Name + "=URN"
	case isFilePath(ds.Source.Object):
		return "", "file source; map it with --urn " + ds.Name + "=URN"
	default:
		table = ds.Source.Object
	}
	if o.platform == "" {
		return "", "no --platform given to build its URN (e.g. --platform trino)"
	}
	if parts := strings.Split(table, "."); o.nameParts > 0 && len(parts) > o.nameParts {
		table = strings.Join(parts[len(parts)-o.nameParts:], ".")
	}
	if o.lowercase {
		table = strings.ToLower(table)
	}
	if o.instance != "" {
		table = o.instance + "." + table
	}
	return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:%s,%s,%s)", o.platform, table, o.env), ""
}

func isFilePath(s string) bool {
	l := strings.ToLower(s)
	for _, ext := range []string{".parquet", ".csv", ".json", ".ndjson", ".tsv"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return strings.Contains(s, "/")
}

// datahubFailure turns a client error into the exit code and next step.
func datahubFailure(err error, url string, hadToken bool) error {
	switch {
	case errors.Is(err, errUnreachable):
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("cannot reach DataHub at %s: %v. Nothing was written. Next: check --datahub (the GMS address, e.g. http://datahub-gms:8080, or its /api/graphql endpoint) and that DataHub is running, then retry", graphqlEndpoint(url), err)}
	case errors.Is(err, errAuth) && !hadToken:
		return failf("%v: DataHub requires a token and none was given. Nothing was written. Next: set DATAHUB_TOKEN (or --token-env/--token-file) to a DataHub personal access token (Settings > Access Tokens)", err)
	case errors.Is(err, errAuth):
		return failf("%v. Nothing was written. Next: set DATAHUB_TOKEN (or --token-env/--token-file) to a valid DataHub personal access token (Settings > Access Tokens)", err)
	}
	return failf("%v. Nothing was written", err)
}

// lookupProgress shows "DataHub: n/total datasets" on stderr while it is a
// terminal (one line, rewritten), and nothing in pipes, logs and tests.
// The returned done clears the line; calling it twice is harmless.
func (e *env) lookupProgress(total int) (tick func(n int), done func()) {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func(int) {}, func() {}
	}
	shown := false
	return func(n int) {
			shown = true
			fmt.Fprintf(f, "\r\033[KDataHub: %d/%d datasets", n, total)
		}, func() {
			if shown {
				fmt.Fprint(f, "\r\033[K")
				shown = false
			}
		}
}
