// Package casefile reads the semantic test cases under test/cases/BC-xx/
// (hand-checked answers from ../shared/cases) so that every engine runner
// (DuckDB now, PostgreSQL and Trino later) reads the same files the same way.
//
// A case directory holds:
//
//	tables.sql    CREATE/INSERT statements of the case (DuckDB dialect, close to ANSI)
//	model.yaml    the Ossie document (version + semantic_model)
//	queries.yaml  {case, title, typical_wrong, queries: [Query...]}
//	governance.yaml  optional: roles of the model; a query's caller plans under them
//
// Comparison rules (cases/README.md "Conventions") live in compare.go.
package casefile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/goccy/go-yaml"
)

// Case is one semantic case loaded from its directory.
type Case struct {
	// ID is the case id, e.g. "BC-01"; it must equal the directory name.
	ID string
	// Title is the one-line statement of the case.
	Title string
	// TypicalWrong describes the wrong answers other layers shipped (free
	// text, printed when a query fails).
	TypicalWrong string
	// Dir is the case directory.
	Dir string
	// TablesSQL is tables.sql verbatim: statements separated by semicolons.
	TablesSQL string
	// Model is model.yaml verbatim.
	Model []byte
	// Governance is governance.yaml verbatim, nil when the case has none.
	Governance []byte
	// Queries run in file order against one database loaded with TablesSQL.
	Queries []Query
}

// Query is one query of a case with its hand-checked answer.
type Query struct {
	// Name is a short label such as "A_by_region".
	Name string
	// JSON is the query body in the planner's JSON shape (compiler/plan.Query).
	JSON json.RawMessage
	// Ordered means row order is part of the answer (the query has order_by).
	Ordered bool
	// Caller, when set, plans the query under these roles of
	// governance.yaml (the answer is then the governed one).
	Caller *Caller
	// Expected is the answer: column names as the planner names its result
	// columns (dimension "dataset.field" or "dataset.field.grain", metric name),
	// rows in the column order of CheckSQL's output.
	Expected Result
	// CheckSQL is plain SQL (DuckDB dialect) that yields Expected on the case data.
	CheckSQL string
	// CheckSQLPostgres is CheckSQL spelled for PostgreSQL, set only where
	// CheckSQL does not run there; "" means CheckSQL runs as is.
	CheckSQLPostgres string
	// Tolerance is the relative tolerance for numbers (default 1e-8).
	Tolerance float64
	// Wrong lists plain-SQL renditions of typical wrong answers; a runner can
	// assert they differ from Expected and name the one a failing result hits.
	Wrong []Wrong
	// Refused, when set, is the answer instead of rows: planning the query
	// must fail with that problem code, its message naming each of
	// Mentions. Expected and CheckSQL are then not given.
	Refused *Refusal
}

// Refusal is a query's expected refusal: a problem code (OSSnnnn) and
// words its message must contain (the candidates it lists).
type Refusal struct {
	Code     string   `yaml:"code"`
	Mentions []string `yaml:"mentions"`
}

// Result is a table of values: nil is SQL NULL; numbers are float64 or
// integers; dates and timestamps are strings "2006-01-02[ 15:04:05]".
type Result struct {
	Columns []string `yaml:"columns"`
	Rows    [][]any  `yaml:"rows"`
}

// Wrong is one typical wrong answer, reproduced as plain SQL.
type Wrong struct {
	Label string `yaml:"label"`
	SQL   string `yaml:"sql"`
}

// DefaultTolerance is the relative tolerance of cases/README.md.
const DefaultTolerance = 1e-8

// Caller is who a query is planned for: role names and caller attributes.
type Caller struct {
	Roles      []string          `yaml:"roles"`
	Attributes map[string]string `yaml:"attributes"`
}

type fileQueries struct {
	Case         string      `yaml:"case"`
	Title        string      `yaml:"title"`
	TypicalWrong string      `yaml:"typical_wrong"`
	Queries      []fileQuery `yaml:"queries"`
}

type fileQuery struct {
	Name      string   `yaml:"name"`
	Query     any      `yaml:"query"`
	Ordered   bool     `yaml:"ordered"`
	Caller    *Caller  `yaml:"caller"`
	Expected  Result   `yaml:"expected"`
	CheckSQL  string   `yaml:"check_sql"`
	CheckPG   string   `yaml:"check_sql_postgres"`
	Tolerance float64  `yaml:"tolerance"`
	Wrong     []Wrong  `yaml:"wrong"`
	Refused   *Refusal `yaml:"refused"`
}

var caseDir = regexp.MustCompile(`^(BC|RW)-[0-9]{2}$`)

// LoadAll loads every BC-xx directory under root, sorted by id.
// Errors: unreadable root or any case that fails Load.
func LoadAll(root string) ([]*Case, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && caseDir.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	out := make([]*Case, 0, len(names))
	for _, n := range names {
		c, err := Load(filepath.Join(root, n))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Load reads one case directory. queries.yaml is decoded strictly (unknown
// keys are errors); every query must have a name, a query, expected columns
// and rows as wide as the columns, and a check_sql.
func Load(dir string) (*Case, error) {
	tables, err := os.ReadFile(filepath.Join(dir, "tables.sql"))
	if err != nil {
		return nil, err
	}
	model, err := os.ReadFile(filepath.Join(dir, "model.yaml"))
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "queries.yaml"))
	if err != nil {
		return nil, err
	}
	var fq fileQueries
	if err := yaml.UnmarshalWithOptions(raw, &fq, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("%s/queries.yaml: %w", dir, err)
	}
	if fq.Case != filepath.Base(dir) {
		return nil, fmt.Errorf("%s/queries.yaml: case %q does not match directory %q", dir, fq.Case, filepath.Base(dir))
	}
	c := &Case{ID: fq.Case, Title: fq.Title, TypicalWrong: fq.TypicalWrong, Dir: dir, TablesSQL: string(tables), Model: model}
	if gov, err := os.ReadFile(filepath.Join(dir, "governance.yaml")); err == nil {
		c.Governance = gov
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	seen := map[string]bool{}
	for i, q := range fq.Queries {
		where := fmt.Sprintf("%s/queries.yaml: queries[%d]", dir, i)
		if q.Name == "" || seen[q.Name] {
			return nil, fmt.Errorf("%s: missing or duplicate name %q", where, q.Name)
		}
		seen[q.Name] = true
		if q.Caller != nil && c.Governance == nil {
			return nil, fmt.Errorf("%s (%s): caller needs a governance.yaml in the case", where, q.Name)
		}
		if q.Refused != nil {
			if q.Query == nil || q.Refused.Code == "" || q.CheckSQL != "" || len(q.Expected.Columns) > 0 {
				return nil, fmt.Errorf("%s (%s): a refused query has query and refused.code, and no check_sql or expected", where, q.Name)
			}
		} else if q.Query == nil || q.CheckSQL == "" || len(q.Expected.Columns) == 0 {
			return nil, fmt.Errorf("%s (%s): query, check_sql and expected.columns are required", where, q.Name)
		}
		for j, r := range q.Expected.Rows {
			if len(r) != len(q.Expected.Columns) {
				return nil, fmt.Errorf("%s (%s): expected.rows[%d] has %d values for %d columns", where, q.Name, j, len(r), len(q.Expected.Columns))
			}
		}
		body, err := json.Marshal(q.Query)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): query is not JSON-encodable: %w", where, q.Name, err)
		}
		tol := q.Tolerance
		if tol == 0 {
			tol = DefaultTolerance
		}
		c.Queries = append(c.Queries, Query{
			Name: q.Name, JSON: body, Ordered: q.Ordered, Caller: q.Caller, Expected: q.Expected,
			CheckSQL: q.CheckSQL, CheckSQLPostgres: q.CheckPG, Tolerance: tol, Wrong: q.Wrong, Refused: q.Refused,
		})
	}
	if len(c.Queries) == 0 {
		return nil, fmt.Errorf("%s/queries.yaml: no queries", dir)
	}
	return c, nil
}
